#include "engine/fallback_broker.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>
#include <thread>

#include "engine/notify_loop.h"
#include "policy/path_util.h"
#include "sys/syscalls.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif

namespace paddock::engine {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "paddock's fallback broker knows x86_64 and aarch64"
#endif

// The metadata calls the broker answers. (The *at2 xattr calls, Linux 6.13, are refused with
// ENOSYS: C libraries fall back to the older ones, which are brokered.)
constexpr long kBrokered[] = {
#ifdef SYS_chmod
    SYS_chmod,
#endif
#ifdef SYS_chown
    SYS_chown,
#endif
#ifdef SYS_lchown
    SYS_lchown,
#endif
#ifdef SYS_utime
    SYS_utime,
#endif
#ifdef SYS_utimes
    SYS_utimes,
#endif
#ifdef SYS_futimesat
    SYS_futimesat,
#endif
    SYS_fchmod,     SYS_fchmodat,  SYS_fchmodat2, SYS_fchown,        SYS_fchownat,      SYS_utimensat,
    SYS_setxattr,   SYS_lsetxattr, SYS_fsetxattr, SYS_removexattr,   SYS_lremovexattr,  SYS_fremovexattr,
};

constexpr std::uint32_t arg_low(int i) {
  return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + i * sizeof(std::uint64_t));  // little endian
}

}  // namespace

std::vector<sock_filter> broker_filter(bool with_notify) {
  const std::uint32_t meta = with_notify ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;
  std::vector<sock_filter> f;
  auto stmt = [&](std::uint16_t code, std::uint32_t k) { f.push_back(BPF_STMT(code, k)); };
  auto jeq = [&](std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf));
  };
  // Another ABI: the main filter answers ENOSYS; nothing to add here.
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  jeq(kNativeArch, 1, 0);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
  for (long nr : kBrokered) {
    jeq(static_cast<std::uint32_t>(nr), 0, 1);
    stmt(BPF_RET | BPF_K, meta);
  }
  for (long nr : {static_cast<long>(SYS_setxattrat), static_cast<long>(SYS_removexattrat)}) {
    jeq(static_cast<std::uint32_t>(nr), 0, 1);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  }
  // socket(AF_UNIX, ...): refused.
  jeq(SYS_socket, 0, 4);
  stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0));
  jeq(AF_UNIX, 0, 1);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  // socketpair(AF_UNIX, SOCK_DGRAM, ...): refused; stream and seqpacket pairs stay.
  jeq(SYS_socketpair, 0, 7);
  stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(0));
  jeq(AF_UNIX, 0, 4);
  stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(1));
  stmt(BPF_ALU | BPF_AND | BPF_K, 0xf);  // the type without SOCK_CLOEXEC / SOCK_NONBLOCK
  jeq(SOCK_DGRAM, 0, 1);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);  // everything else
  return f;
}

BrokerPolicy broker_policy(const Policy& policy, const std::vector<std::string>& private_dirs) {
  BrokerPolicy b;
  for (const PathRule& r : policy.paths)
    if (grants(r.access, Access::Write) && r.symlink_target.empty()) b.writable.push_back(r.path);
  for (const std::string& d : private_dirs)
    if (!d.empty()) b.writable.push_back(d);
  for (const DeniedPath& d : policy.denied) b.denied.push_back(d.path);
  // The protected paths are read-only too (moved aside after the run if changed anyway).
  for (const ProtectedPath& p : policy.protected_paths) b.denied.push_back(p.path);
  return b;
}

bool metadata_change_allowed(const BrokerPolicy& policy, std::string_view real_path) {
  // Objects without a path (pipes, sockets, anonymous inodes) and memfds are nobody's host file.
  if (real_path.empty()) return false;
  if (real_path[0] != '/') return true;
  if (real_path.rfind("/memfd:", 0) == 0) return true;
  constexpr std::string_view kDeleted = " (deleted)";
  if (real_path.size() >= kDeleted.size() && real_path.substr(real_path.size() - kDeleted.size()) == kDeleted)
    return false;  // another link may remain where the policy does not allow changes
  for (const std::string& d : policy.denied)
    if (path::is_at_or_under(real_path, d)) return false;
  for (const std::string& w : policy.writable)
    if (path::is_at_or_under(real_path, w)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------

struct MetadataBroker::Impl {
  sys::UniqueFd listener;
  BrokerPolicy policy;
  sys::UniqueFd stop;
  std::thread thread;
  seccomp_notif_sizes sizes{};

  void run();
  int handle(const seccomp_notif& req);
  bool still_valid(std::uint64_t id) const {
    return ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
  }
};

namespace {

// Reads LEN bytes at ADDR in PID's memory.
bool read_mem(pid_t pid, std::uint64_t addr, void* out, std::size_t len) {
  iovec local{out, len};
  iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

// A NUL-terminated string at ADDR, at most MAX bytes; read in small steps so that a string ending
// just before an unmapped page is still read.
int read_string(pid_t pid, std::uint64_t addr, std::size_t max, std::string& out) {
  if (addr == 0) return EFAULT;
  out.clear();
  char buf[256];
  while (out.size() < max) {
    const std::size_t to_page = 4096 - (addr % 4096);
    const std::size_t n = std::min(sizeof buf, to_page);
    if (!read_mem(pid, addr, buf, n)) return EFAULT;
    const void* nul = std::memchr(buf, '\0', n);
    if (nul != nullptr) {
      out.append(buf, static_cast<const char*>(nul) - buf);
      return 0;
    }
    out.append(buf, n);
    addr += n;
  }
  return ENAMETOOLONG;
}

// The caller's own /proc entries, named as paddock sees them.
std::string caller_path(pid_t pid, std::string path) {
  const std::string me = "/proc/" + std::to_string(pid);
  for (const auto& [prefix, repl] : {std::pair<std::string, std::string>{"/proc/self", me},
                                     {"/proc/thread-self", me + "/task/" + std::to_string(pid)},
                                     {"/dev/fd", me + "/fd"}}) {
    if (path == prefix || path.rfind(prefix + "/", 0) == 0) return repl + path.substr(prefix.size());
  }
  return path;
}

struct Target {
  sys::UniqueFd fd;  // O_PATH
  bool is_link = false;
  std::string real;
};

int open_fd_target(pid_t pid, std::uint64_t fd_arg, Target& t) {
  const int fd = static_cast<int>(fd_arg);
  if (fd < 0) return EBADF;
  t.fd.reset(open(("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd)).c_str(), O_PATH | O_CLOEXEC));
  return t.fd ? 0 : (errno == ENOENT ? EBADF : EPERM);
}

// DIRFD/PATH as the caller would resolve them; FOLLOW: a final symlink is followed.
int open_path_target(pid_t pid, std::uint64_t dirfd_arg, std::uint64_t path_addr, bool follow, bool empty_ok,
                     Target& t) {
  std::string path;
  if (int e = read_string(pid, path_addr, PATH_MAX, path); e != 0) return e;
  const int dirfd = static_cast<int>(dirfd_arg);
  if (path.empty()) {
    if (!empty_ok) return ENOENT;
    if (dirfd == AT_FDCWD) {
      t.fd.reset(open(("/proc/" + std::to_string(pid) + "/cwd").c_str(), O_PATH | O_CLOEXEC));
      return t.fd ? 0 : EPERM;
    }
    return open_fd_target(pid, dirfd_arg, t);
  }
  sys::UniqueFd base;
  if (path[0] != '/') {
    const std::string b = "/proc/" + std::to_string(pid) + (dirfd == AT_FDCWD ? "/cwd" : "/fd/" + std::to_string(dirfd));
    base.reset(open(b.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!base) return errno == ENOTDIR ? ENOTDIR : (errno == ENOENT ? EBADF : EPERM);
  }
  const std::string p = caller_path(pid, path);
  t.fd.reset(openat(base ? base.get() : AT_FDCWD, p.c_str(), O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)));
  return t.fd ? 0 : errno;
}

int describe_target(Target& t) {
  struct stat st;
  if (fstat(t.fd.get(), &st) != 0) return errno;
  t.is_link = S_ISLNK(st.st_mode);
  char buf[PATH_MAX + 32];
  ssize_t n = readlink(("/proc/self/fd/" + std::to_string(t.fd.get())).c_str(), buf, sizeof buf - 1);
  if (n < 0) return EPERM;
  t.real.assign(buf, static_cast<std::size_t>(n));
  return 0;
}

std::string self_fd(const Target& t) { return "/proc/self/fd/" + std::to_string(t.fd.get()); }

int result(long r) { return r == 0 ? 0 : errno; }

}  // namespace

int MetadataBroker::Impl::handle(const seccomp_notif& req) {
  const pid_t pid = static_cast<pid_t>(req.pid);
  const auto* a = req.data.args;
  const long nr = req.data.nr;
  Target t;
  int e = 0;
  // 1. The object, opened as the caller would reach it.
  switch (nr) {
    case SYS_fchmod:
    case SYS_fchown:
    case SYS_fsetxattr:
    case SYS_fremovexattr:
      e = open_fd_target(pid, a[0], t);
      break;
    case SYS_fchmodat:
      e = open_path_target(pid, a[0], a[1], true, false, t);
      break;
    case SYS_fchmodat2:
      e = open_path_target(pid, a[0], a[1], !(a[3] & AT_SYMLINK_NOFOLLOW), a[3] & AT_EMPTY_PATH, t);
      break;
    case SYS_fchownat:
      e = open_path_target(pid, a[0], a[1], !(a[4] & AT_SYMLINK_NOFOLLOW), a[4] & AT_EMPTY_PATH, t);
      break;
    case SYS_utimensat:
      // A null path: the descriptor itself (futimens).
      e = a[1] == 0 ? open_fd_target(pid, a[0], t)
                    : open_path_target(pid, a[0], a[1], !(a[3] & AT_SYMLINK_NOFOLLOW), a[3] & AT_EMPTY_PATH, t);
      break;
#ifdef SYS_futimesat
    case SYS_futimesat:
      e = open_path_target(pid, a[0], a[1], true, false, t);
      break;
#endif
    case SYS_lsetxattr:
    case SYS_lremovexattr:
#ifdef SYS_lchown
    case SYS_lchown:
#endif
      e = open_path_target(pid, static_cast<std::uint64_t>(AT_FDCWD), a[0], false, false, t);
      break;
    default:  // chmod, chown, utime(s), setxattr, removexattr: a path, followed
      e = open_path_target(pid, static_cast<std::uint64_t>(AT_FDCWD), a[0], true, false, t);
      break;
  }
  if (e == 0) e = describe_target(t);
  if (e != 0) return e;
  // 2. Where it really is.
  if (!metadata_change_allowed(policy, t.real)) return EACCES;
  // 3. The change, on that object. Arguments in the caller's memory are copied first.
  switch (nr) {
    case SYS_fchmod:
    case SYS_fchmodat:
    case SYS_fchmodat2:
#ifdef SYS_chmod
    case SYS_chmod:
#endif
    {
      const mode_t mode = static_cast<mode_t>(nr == SYS_fchmodat || nr == SYS_fchmodat2 ? a[2] : a[1]);
      if (t.is_link) return EOPNOTSUPP;  // Linux has no modes on symlinks
      return result(fchmodat(AT_FDCWD, self_fd(t).c_str(), mode, 0));
    }
    case SYS_fchown:
    case SYS_fchownat:
#ifdef SYS_chown
    case SYS_chown:
#endif
#ifdef SYS_lchown
    case SYS_lchown:
#endif
    {
      const int i = nr == SYS_fchownat ? 2 : 1;
      return result(fchownat(t.fd.get(), "", static_cast<uid_t>(a[i]), static_cast<gid_t>(a[i + 1]),
                             AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
    }
    case SYS_utimensat:
#ifdef SYS_utimes
    case SYS_utimes:
#endif
#ifdef SYS_futimesat
    case SYS_futimesat:
#endif
#ifdef SYS_utime
    case SYS_utime:
#endif
    {
      if (t.is_link) return EPERM;
      timespec ts[2];
      timespec* tsp = nullptr;
      std::uint64_t times = a[1];  // utime, utimes
      if (nr == SYS_utimensat) times = a[2];
#ifdef SYS_futimesat
      if (nr == SYS_futimesat) times = a[2];
#endif
      if (times != 0) {
        tsp = ts;
        if (nr == SYS_utimensat) {
          if (!read_mem(pid, times, ts, sizeof ts)) return EFAULT;
#ifdef SYS_utime
        } else if (nr == SYS_utime) {
          utimbuf ub;
          if (!read_mem(pid, times, &ub, sizeof ub)) return EFAULT;
          ts[0] = {ub.actime, 0};
          ts[1] = {ub.modtime, 0};
#endif
        } else {
          timeval tv[2];
          if (!read_mem(pid, times, tv, sizeof tv)) return EFAULT;
          for (int i = 0; i < 2; ++i) ts[i] = {tv[i].tv_sec, tv[i].tv_usec * 1000};
        }
      }
      return result(utimensat(AT_FDCWD, self_fd(t).c_str(), tsp, 0));
    }
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_fsetxattr: {
      if (t.is_link) return EPERM;
      std::string name;
      if (int r = read_string(pid, a[1], XATTR_NAME_MAX + 1, name); r != 0) return r == ENAMETOOLONG ? ERANGE : r;
      const std::size_t size = static_cast<std::size_t>(a[3]);
      if (size > XATTR_SIZE_MAX) return E2BIG;
      std::string value(size, '\0');
      if (size > 0 && !read_mem(pid, a[2], value.data(), size)) return EFAULT;
      return result(setxattr(self_fd(t).c_str(), name.c_str(), value.data(), size, static_cast<int>(a[4])));
    }
    case SYS_removexattr:
    case SYS_lremovexattr:
    case SYS_fremovexattr: {
      if (t.is_link) return EPERM;
      std::string name;
      if (int r = read_string(pid, a[1], XATTR_NAME_MAX + 1, name); r != 0) return r == ENAMETOOLONG ? ERANGE : r;
      return result(removexattr(self_fd(t).c_str(), name.c_str()));
    }
    default:
      return ENOSYS;
  }
}

void MetadataBroker::Impl::run() {
  // This thread acts for the sandbox: none of paddock's capabilities (capabilities are per thread;
  // the raw capset (sys::capset, not glibc's all-threads setxid) changes this one only), so the kernel's own owner and permission checks
  // apply as they would to the sandboxed caller.
  __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[2] = {};
  if (sys::capset(&hdr, none) != 0) {
    listener.reset();  // fail closed: with nobody listening, every brokered call gets ENOSYS
    return;
  }
  notify_loop(listener.get(), stop.get(), sizes, [this](const seccomp_notif& req) -> std::optional<int> {
    const int err = handle(req);
    // Answered only while the caller still waits in that call: the pid it named is then still it.
    if (!still_valid(req.id)) return std::nullopt;
    return err;
  });
}

MetadataBroker::MetadataBroker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetadataBroker::~MetadataBroker() {
  if (!impl_) return;
  std::uint64_t one = 1;
  (void)!write(impl_->stop.get(), &one, sizeof one);
  if (impl_->thread.joinable()) impl_->thread.join();
}

Result<std::unique_ptr<MetadataBroker>> MetadataBroker::start(sys::UniqueFd listener, BrokerPolicy policy) {
  auto impl = std::make_unique<Impl>();
  impl->listener = std::move(listener);
  impl->policy = std::move(policy);
  impl->stop.reset(eventfd(0, EFD_CLOEXEC));
  if (!impl->stop) return errno_error("eventfd", errno, "metadata broker");
  if (sys::seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &impl->sizes) != 0)
    return errno_error("seccomp notification sizes", errno, "metadata broker");
  Impl* raw = impl.get();
  raw->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<MetadataBroker>(new MetadataBroker(std::move(impl)));
}

}  // namespace paddock::engine
