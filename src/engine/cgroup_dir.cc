#include "engine/cgroup_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <utility>

namespace paddock::engine {
namespace {

void sleep_ms(long ms) {
  struct timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Result<void> write_control(const std::string& path, std::string_view value) {
  sys::UniqueFd fd(sys::retry_eintr([&] { return ::open(path.c_str(), O_WRONLY | O_CLOEXEC); }));
  if (!fd) return errno_error("cannot open", errno, path);
  ssize_t n = sys::retry_eintr([&] { return ::write(fd.get(), value.data(), value.size()); });
  if (n < 0) return errno_error("cannot write \"" + std::string(value) + "\"", errno, path);
  if (static_cast<std::size_t>(n) != value.size())
    return make_error("short write of \"" + std::string(value) + "\"", path);
  return ok_result();
}

std::optional<std::string> read_control(const std::string& path) {
  sys::UniqueFd fd(sys::retry_eintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); }));
  if (!fd) return std::nullopt;
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = sys::retry_eintr([&] { return ::read(fd.get(), buf, sizeof buf); });
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::vector<pid_t> read_procs(const std::string& dir) {
  std::vector<pid_t> out;
  auto s = read_control(dir + "/cgroup.procs");
  if (!s) return out;
  std::string_view rest = *s;
  while (!rest.empty()) {
    std::size_t nl = rest.find('\n');
    if (auto v = to_u64(rest.substr(0, nl)); v && *v > 0) out.push_back(static_cast<pid_t>(*v));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  }
  return out;
}

Result<CgroupDir> CgroupDir::create(std::string path, bool v2) {
  if (::mkdir(path.c_str(), 0755) != 0) return errno_error("cannot create cgroup", errno, path);
  CgroupDir dir;
  dir.path_ = std::move(path);
  dir.v2_ = v2;
  int fd = sys::retry_eintr(
      [&] { return ::open((dir.path_ + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC); });
  if (fd < 0) return errno_error("cannot open cgroup.procs", errno, dir.path_);  // dtor removes
  dir.procs_fd_.reset(fd);
  if (!v2) {
    fd = sys::retry_eintr([&] { return ::open((dir.path_ + "/tasks").c_str(), O_WRONLY | O_CLOEXEC); });
    if (fd < 0) return errno_error("cannot open tasks", errno, dir.path_);
    dir.tasks_fd_.reset(fd);
  }
  return dir;
}

CgroupDir::CgroupDir(CgroupDir&& o) noexcept
    : path_(std::exchange(o.path_, {})),
      v2_(o.v2_),
      procs_fd_(std::move(o.procs_fd_)),
      tasks_fd_(std::move(o.tasks_fd_)) {}

CgroupDir& CgroupDir::operator=(CgroupDir&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::exchange(o.path_, {});
    v2_ = o.v2_;
    procs_fd_ = std::move(o.procs_fd_);
    tasks_fd_ = std::move(o.tasks_fd_);
  }
  return *this;
}

CgroupDir::~CgroupDir() { remove(); }

bool CgroupDir::has(std::string_view file) const {
  return ::access((path_ + "/" + std::string(file)).c_str(), F_OK) == 0;
}

Result<void> CgroupDir::write(std::string_view file, std::string_view value) const {
  return write_control(path_ + "/" + std::string(file), value);
}

std::optional<std::string> CgroupDir::read(std::string_view file) const {
  return read_control(path_ + "/" + std::string(file));
}

std::optional<std::uint64_t> CgroupDir::read_u64(std::string_view file) const {
  auto s = read(file);
  if (!s) return std::nullopt;
  return to_u64(*s);
}

std::optional<std::uint64_t> CgroupDir::read_key(std::string_view file,
                                                 std::string_view key) const {
  auto s = read(file);
  if (!s) return std::nullopt;
  return key_value(*s, key);
}

std::optional<std::uint64_t> key_value(std::string_view text, std::string_view key) {
  std::string_view rest = text;
  while (!rest.empty()) {
    std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ')
      return to_u64(line.substr(key.size() + 1));
  }
  return std::nullopt;
}

std::vector<pid_t> CgroupDir::procs() const { return read_procs(path_); }

bool CgroupDir::kill_all(std::chrono::milliseconds patience) const {
  if (!valid()) return false;
  const bool have_kill = v2_ && has("cgroup.kill");
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (true) {
    std::vector<pid_t> pids = procs();
    if (pids.empty()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (have_kill) {
      (void)write("cgroup.kill", "1");  // the kernel kills every member, new forks included
    } else {
      // v1 has no kill file: signal each member; a pids limit keeps a fork bomb finite, and
      // the loop repeats until nobody is left. (A pid could be reused between read and kill;
      // the window is microseconds and the reuser would need the same pid.)
      for (pid_t p : pids) ::kill(p, SIGKILL);
    }
    sleep_ms(1);
  }
}

bool CgroupDir::remove() {
  if (path_.empty()) return true;
  procs_fd_.reset();
  tasks_fd_.reset();
  // Up to ~2 s: members may still be exiting after SIGKILL; v1 memory cgroups need a moment.
  for (int attempt = 0; attempt < 400; ++attempt) {
    if (::rmdir(path_.c_str()) == 0 || errno == ENOENT) {
      path_.clear();
      return true;
    }
    if (errno != EBUSY) break;
    if (!procs().empty()) kill_all(std::chrono::milliseconds(100));
    sleep_ms(attempt < 20 ? 1 : 5);
  }
  path_.clear();  // given up: the caller reports it; the destructor must not try again
  return false;
}

namespace {
std::string self_leaf_name(pid_t pid) { return "paddock-" + std::to_string(pid) + "-self"; }

// The errno of a failed write (EIO for a short one), 0 on success.
int write_errno(const std::string& path, std::string_view value) {
  auto r = write_control(path, value);
  return r ? 0 : (r.error().sys_errno ? r.error().sys_errno : EIO);
}
}  // namespace

int enable_subtree_controllers(const std::string& dir, const std::string& controllers) {
  int err = write_errno(dir + "/cgroup.subtree_control", controllers);
  if (err != EBUSY) return err;
  // Internal processes. Only ours? Then step aside into a leaf of our own.
  if (read_procs(dir) != std::vector<pid_t>{::getpid()}) return err;
  const std::string leaf = dir + "/" + self_leaf_name(::getpid());
  if (::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) return errno;
  if (int e = write_errno(leaf + "/cgroup.procs", std::to_string(::getpid())); e != 0) {
    ::rmdir(leaf.c_str());
    return e;
  }
  return write_errno(dir + "/cgroup.subtree_control", controllers);
}

std::string cgroup2_run_parent(const std::string& own, pid_t pid) {
  const std::string leaf = "/" + self_leaf_name(pid);
  if (own.size() > leaf.size() && own.compare(own.size() - leaf.size(), leaf.size(), leaf) == 0)
    return own.substr(0, own.size() - leaf.size());
  return own;
}

std::string new_cgroup_name() {
  unsigned char r[6] = {};
  if (::getrandom(r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
    struct timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    for (std::size_t i = 0; i < sizeof r; ++i) r[i] = static_cast<unsigned char>(ts.tv_nsec >> (i * 5));
  }
  char hex[sizeof r * 2 + 1];
  for (std::size_t i = 0; i < sizeof r; ++i) std::snprintf(hex + 2 * i, 3, "%02x", r[i]);
  return "paddock-" + std::to_string(::getpid()) + "-" + hex;
}

int sweep_stale_cgroups(const std::string& parent) {
  DIR* d = ::opendir(parent.c_str());
  if (!d) return 0;
  int removed = 0;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.rfind("paddock-", 0) != 0) continue;
    std::string_view rest = name.substr(8);
    const std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos) continue;
    auto pid = to_u64(rest.substr(0, dash));
    if (!pid || *pid == 0 || *pid > 0x7fffffff) continue;
    if (static_cast<pid_t>(*pid) == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;  // owner alive
    // rmdir fails (EBUSY) while processes are still in it: those are left alone.
    if (::rmdir((parent + "/" + std::string(name)).c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

}  // namespace paddock::engine
