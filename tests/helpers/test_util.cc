#include "helpers/test_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/landlock.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

extern char** environ;

namespace ktest {
namespace {

using Clock = std::chrono::steady_clock;

int shell_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::vector<std::string> build_env(const RunOpts& o) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& u : o.unset) env.erase(u);
  for (const auto& [k, v] : o.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

void drain(int& fd, std::string& buf) {
  if (fd < 0) return;
  char tmp[8192];
  for (;;) {
    ssize_t n = read(fd, tmp, sizeof(tmp));
    if (n > 0) {
      buf.append(tmp, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    close(fd);  // EOF or error
    fd = -1;
    return;
  }
}

int remove_one(const char* path, const struct stat*, int type, struct FTW*) {
  if (type == FTW_DP || type == FTW_D || type == FTW_DNR) rmdir(path);
  else unlink(path);
  return 0;
}

int make_writable(const char* path, const struct stat* st, int type, struct FTW*) {
  if (type == FTW_D || type == FTW_DNR) chmod(path, (st->st_mode & 07777) | S_IRWXU);
  return 0;
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = (prefix[0] == '/' ? prefix : "/tmp/" + prefix) + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    ADD_FAILURE() << "mkdtemp " << tmpl << ": " << strerror(errno);
    return;
  }
  path_ = buf.data();
  chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  if (!path_.empty()) remove_tree(path_);
}

void remove_tree(const std::string& path) {
  // First make every directory writable and searchable (tests chmod things), then delete.
  nftw(path.c_str(), make_writable, 32, FTW_PHYS);
  nftw(path.c_str(), make_writable, 32, FTW_PHYS);
  nftw(path.c_str(), remove_one, 32, FTW_DEPTH | FTW_PHYS);
}

void make_dirs(const std::string& path, mode_t mode) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += "/" + part;
    if (mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) {
      ADD_FAILURE() << "mkdir " << cur << ": " << strerror(errno);
      return;
    }
  }
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
  auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) make_dirs(path.substr(0, slash));
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    ADD_FAILURE() << "create " << path << ": " << strerror(errno);
    return;
  }
  if (write(fd, content.data(), content.size()) != static_cast<ssize_t>(content.size()))
    ADD_FAILURE() << "write " << path << ": " << strerror(errno);
  fchmod(fd, mode);
  close(fd);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

Started::Started(Started&& o) noexcept
    : pid_(o.pid_), out_(o.out_), err_(o.err_), out_buf_(std::move(o.out_buf_)),
      err_buf_(std::move(o.err_buf_)), started_(o.started_) {
  o.pid_ = 0;
  o.out_ = o.err_ = -1;
}

Started::~Started() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_ >= 0) close(out_);
  if (err_ >= 0) close(err_);
}

Started start(const std::vector<std::string>& argv, const RunOpts& opts) {
  Started s;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << strerror(errno);
    return s;
  }
  auto env = build_env(opts);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  int in_pipe[2] = {-1, -1};
  if (opts.stdin_data && pipe2(in_pipe, O_CLOEXEC) != 0) ADD_FAILURE() << "pipe";

  s.started_ = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (opts.stdin_data) {
      dup2(in_pipe[0], 0);
    } else {
      int devnull = open("/dev/null", O_RDONLY);
      dup2(devnull, 0);
      if (devnull > 2) close(devnull);
    }
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : opts.keep_fds) fcntl(fd, F_SETFD, 0);
    if (!opts.cwd.empty() && chdir(opts.cwd.c_str()) != 0) {
      dprintf(2, "chdir %s: %s\n", opts.cwd.c_str(), strerror(errno));
      _exit(126);
    }
    // Own process group, so a test can signal the whole tree and the tests' terminal is out of it.
    setpgid(0, 0);
    execve(cargv[0], cargv.data(), cenv.data());
    dprintf(2, "exec %s: %s\n", cargv[0], strerror(errno));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << strerror(errno);
    close(out[0]);
    close(err[0]);
    return s;
  }
  if (opts.stdin_data) {
    close(in_pipe[0]);
    // Small inputs only: write all, then close (a large write could block; tests keep it short).
    const std::string& d = *opts.stdin_data;
    size_t off = 0;
    signal(SIGPIPE, SIG_IGN);
    while (off < d.size()) {
      ssize_t n = write(in_pipe[1], d.data() + off, d.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(in_pipe[1]);
  }
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  s.pid_ = pid;
  s.out_ = out[0];
  s.err_ = err[0];
  return s;
}

std::string Started::read_out(std::chrono::milliseconds wait) {
  auto deadline = Clock::now() + wait;
  size_t before = out_buf_.size();
  while (out_ >= 0 || err_ >= 0) {
    pollfd p[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    int r = poll(p, 2, static_cast<int>(left));
    if (r <= 0) break;
    drain(out_, out_buf_);
    drain(err_, err_buf_);
    if (out_buf_.size() > before) break;
  }
  return out_buf_;
}

bool Started::wait_for_out(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (out_buf_.find(needle) != std::string::npos) return true;
    if (out_ < 0) return false;
    read_out(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  }
  return out_buf_.find(needle) != std::string::npos;
}

Proc Started::finish(std::chrono::milliseconds timeout) {
  Proc p;
  p.pid = pid_;
  if (pid_ <= 0) return p;
  auto deadline = Clock::now() + timeout;
  while (out_ >= 0 || err_ >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      p.timed_out = true;
      kill(pid_, SIGKILL);
      kill(-pid_, SIGKILL);
      break;
    }
    pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
    int r = poll(fds, 2, static_cast<int>(left > 200 ? 200 : left));
    if (r < 0 && errno != EINTR) break;
    drain(out_, out_buf_);
    drain(err_, err_buf_);
  }
  // Output closed (or timeout): wait for the process, bounded.
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid_, &status, WNOHANG);
    if (w == pid_) break;
    if (w < 0) break;
    if (Clock::now() > deadline) {
      p.timed_out = true;
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    usleep(5000);
  }
  drain(out_, out_buf_);
  drain(err_, err_buf_);
  p.status = status;
  p.code = shell_code(status);
  p.out = std::move(out_buf_);
  p.err = std::move(err_buf_);
  p.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  pid_ = 0;
  return p;
}

Proc run(const std::vector<std::string>& argv, const RunOpts& opts) {
  Started s = start(argv, opts);
  return s.finish(opts.timeout);
}

const char* test_as() {
  const char* v = getenv("PADDOCK_TEST_AS");
  if (v && *v) return v;
  return geteuid() == 0 ? "root" : "unprivileged";
}

bool is_root() { return std::string(test_as()) == "root"; }

std::string paddock_bin() {
  const char* v = getenv("PADDOCK_BIN");
  return v ? v : "";
}

std::string probe_bin() {
  const char* v = getenv("PADDOCK_PROBE");
  return v ? v : "";
}

World::World() : root("paddock-kt") {
  home = root / "home";
  project = home + "/proj";
  make_dirs(project);
  chmod(home.c_str(), 0755);
  probe = project + "/paddock-probe";
  std::string bin = read_file(probe_bin());
  if (!bin.empty()) write_file(probe, bin, 0755);
  ssh_key = home + "/.ssh/id_ed25519";
  write_file(ssh_key, kSecret, 0600);
  aws_creds = home + "/.aws/credentials";
  write_file(aws_creds, std::string("[default]\naws_secret_access_key=") + kSecret + "\n", 0600);
}

RunOpts World::opts() const {
  RunOpts o;
  o.cwd = project;
  o.env["HOME"] = home;
  o.env["XDG_CONFIG_HOME"] = home + "/.config";
  return o;
}

RunOpts World::state_opts() const {
  RunOpts o = opts();
  o.unset.push_back("XDG_STATE_HOME");
  return o;
}

Proc World::paddock(const std::vector<std::string>& args, RunOpts o) const {
  std::vector<std::string> argv{paddock_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, o);
}

Proc World::probe_run(const std::vector<std::string>& flags, const std::vector<std::string>& probe_args) const {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back("--");
  args.push_back(probe);
  args.insert(args.end(), probe_args.begin(), probe_args.end());
  return paddock(args);
}

Proc World::sh(const std::string& script, const std::vector<std::string>& flags) const {
  std::vector<std::string> args{"run"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/bin/sh", "-c", script});
  return paddock(args);
}

std::string describe(const Proc& p) {
  std::ostringstream s;
  s << "[" << test_as() << "] exit " << p.code << (p.timed_out ? " (timed out)" : "") << "\n--- stdout ---\n"
    << p.out << "--- stderr ---\n" << p.err;
  return s.str();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

std::vector<pid_t> host_pids_with(const std::string& marker) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::string cmd = read_file(std::string("/proc/") + e->d_name + "/cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (contains(cmd, marker)) out.push_back(atoi(e->d_name));
  }
  closedir(d);
  return out;
}

int landlock_abi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

bool user_namespaces_work() {
  pid_t pid = fork();
  if (pid == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

}  // namespace ktest
