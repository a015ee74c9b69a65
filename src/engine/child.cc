// Everything here runs in the child between clone and exec: async-signal-safe calls only, and
// only reads of the Plan the parent built. See child.h.
#include "engine/child.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "engine/fallback_init.h"
#include "sys/netif.h"
#include "sys/raw_io.h"
#include "sys/syscalls.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

namespace paddock::engine {
namespace {

const Plan* g_plan = nullptr;
int g_pty_slave = -1;
volatile pid_t g_command_pid = 0;

void copy_str(char* dst, std::size_t cap, const char* src) {
  std::size_t i = 0;
  if (src)
    for (; src[i] && i + 1 < cap; ++i) dst[i] = src[i];
  dst[i] = '\0';
}

void send(ChildMessage::Type type, int err, int value, const char* step, const char* detail) {
  ChildMessage m;
  m.type = type;
  m.err = err;
  m.value = value;
  copy_str(m.step, sizeof(m.step), step);
  copy_str(m.detail, sizeof(m.detail), detail);
  sys::write_all(g_plan->report_fd, &m, sizeof(m));
}

[[noreturn]] void fail(const char* step, const char* detail, int err = errno) {
  if (g_plan->exec_in_place) {
    // --exec: nobody reads a report pipe; say it on stderr in the same words.
    char buf[512];
    std::size_t n = sys::append(buf, sizeof(buf), 0, "paddock: sandbox setup failed: ");
    n = sys::append(buf, sizeof(buf), n, step);
    if (detail && *detail) {
      n = sys::append(buf, sizeof(buf), n, " ");
      n = sys::append(buf, sizeof(buf), n, detail);
    }
    n = sys::append(buf, sizeof(buf), n, ": ");
    const char* desc = strerrordesc_np(err);
    n = sys::append(buf, sizeof(buf), n, desc ? desc : "error");
    n = sys::append(buf, sizeof(buf), n, "\n");
    sys::write_all(2, buf, n);
    _exit(125);
  }
  send(ChildMessage::SetupError, err, 0, step, detail);
  _exit(125);
}

bool write_file(const char* path, const char* data) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = sys::write_all(fd, data, std::strlen(data));
  int saved = errno;
  close(fd);
  errno = saved;
  return ok;
}

// Creates the directory buf[0..len) and any missing parents (mkdir -p), in place: buf is
// modified while walking and restored. Tries the deepest directory first, so the common case
// (parents already exist) is one mkdir, not one per component.
bool mkdir_p(char* buf, std::size_t len) {
  if (len == 0) return true;
  char saved = buf[len];
  buf[len] = '\0';
  bool ok = mkdir(buf, 0755) == 0 || errno == EEXIST;
  if (!ok && errno == ENOENT) {
    std::size_t slash = len;
    while (slash > 0 && buf[slash - 1] != '/') --slash;
    // buf[0..slash-1) is the parent; "/" itself always exists.
    if (slash > 1 && mkdir_p(buf, slash - 1)) {
      buf[len] = '\0';
      ok = mkdir(buf, 0755) == 0 || errno == EEXIST;
    }
  }
  buf[len] = saved;
  return ok;
}

// mkdir -p for the parents of `path` (and `path` itself when is_dir); creates an empty file
// when !is_dir. Existing objects are fine.
bool ensure_mountpoint(const char* path, bool is_dir) {
  char buf[PATH_MAX];
  std::size_t len = std::strlen(path);
  if (len >= sizeof(buf)) {
    errno = ENAMETOOLONG;
    return false;
  }
  std::memcpy(buf, path, len + 1);
  if (is_dir) return mkdir_p(buf, len);
  int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 && errno == ENOENT) {
    const char* slash = std::strrchr(buf, '/');
    if (slash && slash != buf && mkdir_p(buf, static_cast<std::size_t>(slash - buf)))
      fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  }
  if (fd < 0) {
    if (errno == EISDIR || errno == EROFS || errno == EACCES) {
      struct stat st;
      if (lstat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) return true;
    }
    return false;
  }
  close(fd);
  return true;
}

// Flags a remount must keep because the kernel locks them on mounts from another user namespace.
unsigned long locked_flags(const char* path) {
  struct statfs sf;
  unsigned long out = 0;
  if (statfs(path, &sf) != 0) return 0;
  if (sf.f_flags & ST_NOSUID) out |= MS_NOSUID;
  if (sf.f_flags & ST_NODEV) out |= MS_NODEV;
  if (sf.f_flags & ST_NOEXEC) out |= MS_NOEXEC;
  if (sf.f_flags & ST_RDONLY) out |= MS_RDONLY;
  if (sf.f_flags & ST_NOATIME) out |= MS_NOATIME;
  if (sf.f_flags & ST_NODIRATIME) out |= MS_NODIRATIME;
  if (sf.f_flags & ST_RELATIME) out |= MS_RELATIME;
  return out;
}

// Applies read-only/nosuid/nodev/noexec to a bind mount, to its whole tree when the kernel
// has mount_setattr; on a kernel without it (before 5.12), to the top mount only. Refused (a
// container's seccomp profile), the setup fails: the top mount alone would leave the mounts
// under it writable (spawn.cc then falls back to Landlock + seccomp, announced).
void seal_bind(const MountOp& op, bool recursive_ok) {
  std::uint64_t set = sys::kMountAttrNosuid;
  unsigned long ms = MS_NOSUID;
  if (op.readonly) {
    set |= sys::kMountAttrRdonly;
    ms |= MS_RDONLY;
  }
  if (op.kind != MountOp::Kind::DevNode) {
    set |= sys::kMountAttrNodev;
    ms |= MS_NODEV;
  }
  if (op.extra_flags & MS_NOEXEC) {
    set |= sys::kMountAttrNoexec;
    ms |= MS_NOEXEC;
  }
  if (recursive_ok) {
    if (sys::mount_setattr_recursive(op.dst.c_str(), set, 0) == 0) return;
    if (errno == EPERM || errno == EACCES) fail("mount_setattr", op.label.c_str());
  }
  if (mount(nullptr, op.dst.c_str(), nullptr, MS_REMOUNT | MS_BIND | ms | locked_flags(op.dst.c_str()),
            nullptr) < 0)
    fail("remount read-only", op.label.c_str());
}

void apply_mount(const MountOp& op) {
  const char* dst = op.dst.c_str();
  const char* label = op.label.c_str();
  switch (op.kind) {
    case MountOp::Kind::Bind:
    case MountOp::Kind::DevNode:
    case MountOp::Kind::Protect: {
      if (op.kind != MountOp::Kind::Protect && !ensure_mountpoint(dst, op.is_dir))
        fail("create mount point", label);
      const char* src = op.kind == MountOp::Kind::Protect ? dst : op.src.c_str();
      bool recursive = op.is_dir;
      if (mount(src, dst, nullptr, MS_BIND | (recursive ? MS_REC : 0), nullptr) < 0) {
        if (op.kind == MountOp::Kind::Protect && errno == ENOENT) return;  // vanished: nothing to protect
        fail(op.kind == MountOp::Kind::Protect ? "protect" : "bind", label);
      }
      if (op.check_inode) {
        struct stat st;
        if (stat(dst, &st) != 0) fail("verify bind", label);
        if (st.st_dev != op.dev || st.st_ino != op.ino)
          fail("verify bind", label, EXDEV);  // the path changed between planning and mounting
      }
      seal_bind(op, true);
      return;
    }
    case MountOp::Kind::Tmpfs:
    case MountOp::Kind::MaskDir: {
      if (!ensure_mountpoint(dst, true)) fail("create mount point", label);
      unsigned long flags = MS_NOSUID | MS_NODEV | (op.kind == MountOp::Kind::MaskDir ? MS_NOEXEC : 0);
      if (mount("tmpfs", dst, "tmpfs", flags, op.data.c_str()) < 0) fail("mount tmpfs", label);
      return;
    }
    case MountOp::Kind::MaskFile: {
      if (!ensure_mountpoint(dst, false)) fail("create mount point", label);
      if (mount(op.src.c_str(), dst, nullptr, MS_BIND, nullptr) < 0) fail("mask", label);
      if (mount(nullptr, dst, nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                nullptr) < 0)
        fail("mask", label);
      return;
    }
    case MountOp::Kind::Symlink: {
      char parent[PATH_MAX];
      copy_str(parent, sizeof(parent), dst);
      char* slash = std::strrchr(parent, '/');
      if (slash && slash != parent) {
        *slash = '\0';
        if (!ensure_mountpoint(parent, true)) fail("create directory", label);
      }
      if (symlink(op.src.c_str(), dst) < 0 && errno != EEXIST) fail("symlink", label);
      return;
    }
    case MountOp::Kind::Overlay:
      if (!ensure_mountpoint(dst, true)) fail("create mount point", label);
      if (mount("overlay", dst, "overlay", MS_NOSUID | MS_NODEV, op.data.c_str()) < 0) fail("mount overlay", label);
      return;
    case MountOp::Kind::Proc:
      if (!ensure_mountpoint(dst, true)) fail("create mount point", label);
      if (mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) < 0) fail("mount proc", label);
      return;
    case MountOp::Kind::Devpts:
      if (!ensure_mountpoint(dst, true)) fail("create mount point", label);
      if (mount("devpts", dst, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") < 0)
        fail("mount devpts", label);
      return;
    case MountOp::Kind::WriteFile: {
      if (!ensure_mountpoint(dst, false)) fail("create file", label);
      int fd = open(dst, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0) fail("write file", label);
      if (!sys::write_all(fd, op.data.data(), op.data.size())) fail("write file", label);
      close(fd);
      if (chmod(dst, op.readonly ? 0000 : 0444) < 0) fail("write file", label);
      return;
    }
  }
}

void send_fds(int sock, const int* fds, std::size_t n, const char* what);

// The fresh HOME's tmpfs, its one mount without what is bound into it, to paddock: what the
// command writes there is gone with the sandbox, and paddock lists it after the run.
void send_scratch_home(const Plan& plan) {
  int fd = sys::open_tree(AT_FDCWD, plan.discard_root.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (fd >= 0) {
    send_fds(plan.discard_sock, &fd, 1, "scratch HOME");
    close(fd);
  }
  close(plan.discard_sock);
}

void build_root(const Plan& plan) {
  // Nothing we mount may propagate back to the host.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) < 0) fail("make mounts private", "/");
  // A scratch tmpfs becomes the root for a moment; the host root stays reachable at /oldroot.
  if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0)
    fail("mount scratch tmpfs", "/tmp");
  if (chdir("/tmp") < 0) fail("chdir", "/tmp");
  if (mkdir("newroot", 0755) < 0 || mkdir("oldroot", 0755) < 0) fail("mkdir", "scratch");
  if (sys::pivot_root(".", "oldroot") < 0) fail("pivot_root", "scratch");
  if (chdir("/") < 0) fail("chdir", "/");
  if (mount("tmpfs", kNewRoot, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) fail("mount root tmpfs", "/");

  for (const MountOp& op : plan.mounts) apply_mount(op);
  if (plan.discard_sock >= 0) send_scratch_home(plan);

  if (umount2(kOldRoot, MNT_DETACH) < 0) fail("detach host root", "/");
  if (chdir(kNewRoot) < 0) fail("chdir", "/");
  if (sys::pivot_root(".", ".") < 0) fail("pivot_root", "/");
  if (umount2(".", MNT_DETACH) < 0) fail("detach scratch root", "/");
  if (chdir("/") < 0) fail("chdir", "/");

  for (const std::string& path : plan.remount_ro_at_end) {
    const char* p = path.c_str();
    if (mount(nullptr, p, nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(p) | MS_NOSUID | MS_NODEV,
              nullptr) < 0)
      fail("remount read-only", p);
  }
}

void bring_loopback_up() {
  if (int e = sys::loopback_up(); e != 0) fail("loopback up", "lo", e);
}

// Sends descriptors to paddock with SCM_RIGHTS (at most 32).
void send_fds(int sock, const int* fds, std::size_t n, const char* what) {
  char cbuf[CMSG_SPACE(sizeof(int) * 32)];
  std::memset(cbuf, 0, sizeof(cbuf));
  char byte = 'F';
  struct iovec iov = {&byte, 1};
  struct msghdr msg;
  std::memset(&msg, 0, sizeof(msg));
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cbuf;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * n);
  std::memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
  if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0) fail(what, "send");
}

// Creates the egress filter's listeners inside the sandbox's network namespace and hands them to
// the parent, which serves them from the host network.
void send_listeners(const Plan& plan) {
  constexpr std::size_t kMax = 32;
  int fds[kMax];
  std::size_t n = 0;
  for (const net::ListenSpec& l : plan.listeners) {
    if (n == kMax) fail("network listeners", "too many", E2BIG);
    int s = net::open_listener(l);
    // An optional socket that cannot be made (net/egress.h): one of another family holds its place.
    if (s < 0 && l.optional) s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) fail("network listener", l.role.c_str());
    fds[n++] = s;
  }
  send_fds(plan.net_fd, fds, n, "network listeners");
  for (std::size_t i = 0; i < n; ++i) close(fds[i]);
  close(plan.net_fd);
}

// Opens a pty in the sandbox's own devpts; the master goes to paddock, the slave to the command.
void open_sandbox_pty(const Plan& plan) {
  int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) fail("pty", "/dev/ptmx");
  int unlock = 0;
  if (ioctl(master, TIOCSPTLCK, &unlock) < 0) fail("pty", "unlock");
  unsigned n = 0;
  if (ioctl(master, TIOCGPTN, &n) < 0) fail("pty", "number");
  char path[64];
  std::size_t len = sys::append(path, sizeof(path), 0, "/dev/pts/");
  char num[24];
  sys::format_uint(num, sizeof(num), n);
  sys::append(path, sizeof(path), len, num);
  int slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) fail("pty", path);
  if (plan.pty_have_termios) tcsetattr(slave, TCSANOW, &plan.pty_termios);
  ioctl(slave, TIOCSWINSZ, &plan.pty_winsize);
  send_fds(plan.pty_sock, &master, 1, "pty");
  close(master);
  close(plan.pty_sock);
  g_pty_slave = slave;
}

void apply_landlock(const LandlockPlan& ll) {
  sys::LandlockRulesetAttr attr = {ll.handled_fs, ll.handled_net, ll.scoped};
  int rs = sys::landlock_create_ruleset(&attr, sys::landlock_attr_size(ll.abi), 0);
  if (rs < 0) fail("landlock create ruleset", "");
  constexpr std::uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                                        LANDLOCK_ACCESS_FS_IOCTL_DEV;
  for (const LandlockRule& r : ll.rules) {
    int fd = open(r.path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
      if (r.optional && errno == ENOENT) continue;
      fail("landlock open", r.path.c_str());
    }
    struct stat st;
    if (fstat(fd, &st) < 0) fail("landlock stat", r.path.c_str());
    std::uint64_t access = r.access & ll.handled_fs;
    if (!S_ISDIR(st.st_mode)) access &= kFileRights;
    if (access != 0 && sys::landlock_add_path_rule(rs, fd, access) < 0) fail("landlock add rule", r.path.c_str());
    close(fd);
  }
  if (sys::landlock_restrict_self(rs) < 0) fail("landlock restrict", "");
  close(rs);
}

void drop_capabilities(bool must) {
  int last = 63;
  for (int cap = 0; cap <= last; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
      if (errno == EINVAL) break;  // past the kernel's last capability
      if (must) fail("drop bounding set", "");
      break;
    }
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  if (must) {
    unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                         SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                         SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0) fail("securebits", "");
  }
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  std::memset(data, 0, sizeof(data));
  if (sys::capset(&hdr, data) < 0 && must) fail("drop capabilities", "");
}

void apply_seccomp(const Plan& plan) {
  struct sock_fprog prog;
  prog.len = static_cast<unsigned short>(plan.seccomp.size());
  prog.filter = const_cast<sock_filter*>(plan.seccomp.data());
  // The notify variant's listener goes to paddock, whose supervisor answers each refusal with
  // its errno and records it (denylist_supervisor.h).
  const unsigned flags = plan.denylist_fd >= 0 ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
  long listener = sys::seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (listener < 0) fail("seccomp", "");
  if (plan.denylist_fd < 0) return;
  int fd = static_cast<int>(listener);
  send_fds(plan.denylist_fd, &fd, 1, "seccomp denylist listener");
  close(fd);
  close(plan.denylist_fd);
}

// The fallback's broker filter: its listener goes to paddock, which answers the metadata calls.
void apply_broker_filter(const Plan& plan) {
  struct sock_fprog prog;
  prog.len = static_cast<unsigned short>(plan.broker_seccomp.size());
  prog.filter = const_cast<sock_filter*>(plan.broker_seccomp.data());
  const unsigned flags = plan.broker_fd >= 0 ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
  long listener = sys::seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (listener < 0) fail("seccomp broker filter", "");
  if (plan.broker_fd < 0) return;
  int fd = static_cast<int>(listener);
  send_fds(plan.broker_fd, &fd, 1, "seccomp broker listener");
  close(fd);
  close(plan.broker_fd);
}

void forward_signal(int sig) {
  pid_t p = g_command_pid;
  if (p > 0) {
    if (kill(-p, sig) < 0) kill(p, sig);
  }
}

void reset_signals() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    sigaction(sig, &sa, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace

// Without /proc: every number below RLIMIT_NOFILE's hard limit (a descriptor above it exists
// only if the limit was lowered after it was opened).
void mark_cloexec_from(int lo) {
  // getdents64's record (the kernel's struct linux_dirent64; glibc declares none).
  struct linux_dirent64_view {
    std::uint64_t d_ino;
    std::int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
  };
  int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      long n = sys::getdents64(dir, buf, sizeof(buf));
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        auto* d = reinterpret_cast<struct linux_dirent64_view*>(buf + off);
        off += d->d_reclen;
        int fd = 0;
        bool number = d->d_name[0] != '\0';
        for (const char* c = d->d_name; *c; ++c) {
          if (*c < '0' || *c > '9') number = false;
          else fd = fd * 10 + (*c - '0');
        }
        if (number && fd >= lo && fd != dir) fcntl(fd, F_SETFD, FD_CLOEXEC);
      }
    }
    close(dir);
    return;
  }
  struct rlimit rl;
  rlim_t end = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY ? rl.rlim_max : (1u << 20);
  for (rlim_t fd = static_cast<rlim_t>(lo); fd < end; ++fd) fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
}

namespace {

void exec_failed(const Plan& plan, int err, const char* what) {
  if (plan.exec_in_place) {
    char buf[512];
    std::size_t n = sys::append(buf, sizeof(buf), 0, "paddock: ");
    n = sys::append(buf, sizeof(buf), n, what);
    n = sys::append(buf, sizeof(buf), n, err == ENOENT ? ": command not found\n" : ": cannot execute\n");
    sys::write_all(2, buf, n);
    return;
  }
  send(ChildMessage::ExecError, err, 0, "exec", what);
}

[[noreturn]] void exec_command(const Plan& plan) {
  reset_signals();
  if (!plan.exec_in_place && setsid() < 0) fail("setsid", "");
  if (plan.ctty_fd >= 0 && ioctl(plan.ctty_fd, TIOCSCTTY, 0) < 0) fail("controlling terminal", "");
  if (g_pty_slave >= 0 && ioctl(g_pty_slave, TIOCSCTTY, 0) < 0) fail("controlling terminal", "");
  for (int i = 0; i < 3; ++i) {
    int fd = plan.pty_stdio[i] && g_pty_slave >= 0 ? g_pty_slave : plan.stdio[i];
    if (fd >= 0 && dup2(fd, i) < 0) fail("stdio", "");
  }
  // Every inherited descriptor but 0-2 and the ones passed on purpose closes at exec.
  if (sys::close_range(3, ~0U, sys::kCloseRangeCloexec) < 0) mark_cloexec_from(3);
  for (int fd : plan.keep_fds) {
    if (fcntl(fd, F_SETFD, 0) < 0) fail("pass fd", "");
  }
  for (const RlimitSpec& r : plan.rlimits) {
    if (setrlimit(r.resource, &r.value) < 0) fail("setrlimit", "");
  }
  if (plan.exec_path.empty()) {
    exec_failed(plan, ENOENT, plan.argv_storage[0].c_str());
    _exit(127);
  }
  execve(plan.exec_path.c_str(), plan.argv.data(), plan.envp.data());
  int err = errno;
  exec_failed(plan, err, plan.exec_path.c_str());
  _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

// Closes every descriptor but `keep` and the sorted `also` (async-signal-safe: close_range over
// the gaps).
void close_all_but(int keep, const std::vector<int>& also) {
  int lo = 0;  // the next descriptor that may be closed
  auto upto = [&](int fd) {  // closes [lo, fd)
    if (fd > lo) sys::close_range(static_cast<unsigned>(lo), static_cast<unsigned>(fd - 1), 0);
    lo = fd + 1;
  };
  bool kept = false;
  for (int fd : also) {
    if (!kept && keep < fd) {
      upto(keep);
      kept = true;
    }
    if (fd >= lo) upto(fd);
  }
  if (!kept && keep >= lo) upto(keep);
  sys::close_range(static_cast<unsigned>(lo), ~0U, 0);
}

// The tree's CPU time and peak RSS (this init and everything it reaped), for RunResult when
// the parent does not wait4() the init.
void send_usage() {
  struct rusage self, kids;
  if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &kids) != 0) return;
  auto us = [](const struct timeval& a, const struct timeval& b) {
    return static_cast<unsigned long>(a.tv_sec + b.tv_sec) * 1000000UL +
           static_cast<unsigned long>(a.tv_usec + b.tv_usec);
  };
  char buf[96], num[24];
  std::size_t n = 0;
  sys::format_uint(num, sizeof(num), us(self.ru_utime, kids.ru_utime));
  n = sys::append(buf, sizeof(buf), n, num);
  n = sys::append(buf, sizeof(buf), n, " ");
  sys::format_uint(num, sizeof(num), us(self.ru_stime, kids.ru_stime));
  n = sys::append(buf, sizeof(buf), n, num);
  n = sys::append(buf, sizeof(buf), n, " ");
  sys::format_uint(num, sizeof(num), static_cast<unsigned long>(std::max(self.ru_maxrss, kids.ru_maxrss)));
  sys::append(buf, sizeof(buf), n, num);
  send(ChildMessage::Usage, 0, 0, "", buf);
}

}  // namespace

// The one-way steps below run in this order, and the order is part of the protection: each step
// needs what a later one takes away, or would undo or escape an earlier one.
//  1. cgroup join (then the cgroup namespace): first, so that nothing the sandbox does, its own
//     setup and every fork included, happens outside the run's limits; with the parent's
//     credentials still in force for the write to cgroup.procs; and before unshare(CLONE_NEWCGROUP),
//     whose root is the cgroup the process is in at that moment (else paddock's own would show).
//  2. id maps (setgroups "deny", uid_map, gid_map): before the root is built, because mounting and
//     creating files in the user namespace needs our ids mapped, and because the files are the
//     host's /proc/self ones, gone once the root is pivoted; before "not dumpable" (7), which makes
//     /proc/self root-owned and unwritable to us.
//  3. root (mounts, pivot_root, the old root detached): needs CAP_SYS_ADMIN in the namespace, so
//     before the capabilities go (5); before Landlock (4), which forbids a restricted process to
//     change its mounts and whose rules name paths as the new root shows them; before seccomp (6),
//     which refuses mount, umount2 and pivot_root.
//  4. no_new_privs, then Landlock: no_new_privs is what lets an unprivileged process restrict
//     itself, and it must hold before anything could exec a setuid program; Landlock's rules are
//     opened by path, so before seccomp could refuse what opening them needs, and after the root
//     so that no mount can later put something unruled at a ruled path. (The fallback's command
//     gets its domain after the fork, below, so that the init stays outside it.) Before the
//     capabilities go: root's rule paths may lie in directories only CAP_DAC_* lets it search.
//  5. capabilities (bounding set, securebits, capset): after the last step that needs one (the
//     root, the rule paths); before seccomp, whose list allows prctl and capset today: dropping
//     first keeps the drop independent of what the list grows to.
//  6. seccomp: the last restriction, because it refuses what steps 1-3 use (unshare, mount,
//     pivot_root, setns); once it is in place nothing above can be redone by the command.
//  7. not dumpable (init only): after the id maps (see 2) and before the command is forked, so the
//     command can neither ptrace this init nor read its memory or /proc/1/environ; the command
//     itself is dumpable again after its execve.
[[noreturn]] void child_main(const Plan& plan) {
  g_plan = &plan;
  // Die with paddock.
  if (!plan.exec_in_place && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) fail("parent-death signal", "");
  for (int fd : plan.cgroup_attach_fds) {
    if (!sys::write_all(fd, "0", 1)) fail("join cgroup", "");
  }
  if (plan.new_cgroup_ns && plan.attach_wait_fd < 0 && unshare(CLONE_NEWCGROUP) < 0) fail("cgroup namespace", "");

  if (plan.namespaces) {
    if (!write_file("/proc/self/setgroups", "deny") && errno != ENOENT) fail("setgroups", "deny");
    if (!write_file("/proc/self/uid_map", plan.uid_map.c_str())) fail("uid map", plan.uid_map.c_str());
    if (!write_file("/proc/self/gid_map", plan.gid_map.c_str())) fail("gid map", plan.gid_map.c_str());
    if (!plan.pid_max.empty()) {
      // Only pid 1 of a new pid namespace writes its own pid_max (never the host's).
      if (getpid() != 1) fail("process ceiling", "not pid 1 of a new pid namespace", EINVAL);
      if (!write_file("/proc/sys/kernel/pid_max", plan.pid_max.c_str())) fail("process ceiling", "kernel.pid_max");
    }
    if (!plan.hostname.empty() && sethostname(plan.hostname.data(), plan.hostname.size()) < 0)
      fail("sethostname", plan.hostname.c_str());
    if (plan.loopback_up) bring_loopback_up();
    if (!plan.listeners.empty()) send_listeners(plan);
    build_root(plan);
  } else if (plan.fallback_subreaper) {
    if (!fallback_init_setup(plan.parent_pid, plan.sweep_signal)) fail("subreaper", "");
  }
  if (chdir(plan.cwd.c_str()) < 0) fail("chdir", plan.cwd.c_str());
  if (plan.pty_sock >= 0) open_sandbox_pty(plan);

  if (plan.attach_wait_fd >= 0) {
    // Nothing of the command may run outside its cgroups: wait for the parent's attach.
    char go = 0;
    ssize_t n;
    do {
      n = read(plan.attach_wait_fd, &go, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) fail("join cgroup", "the parent could not attach the sandbox", n < 0 ? errno : EPIPE);
    close(plan.attach_wait_fd);
    if (plan.new_cgroup_ns && unshare(CLONE_NEWCGROUP) < 0) fail("cgroup namespace", "");
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail("no_new_privs", "");
  // The fallback's command gets its Landlock domain after the fork: the init stays outside it,
  // so with signal scoping (ABI 6) the command cannot kill the init that will sweep its daemons.
  if (plan.landlock.abi > 0 && !plan.fallback_subreaper) apply_landlock(plan.landlock);
  drop_capabilities(plan.namespaces || geteuid() == 0);
  if (!plan.seccomp.empty()) apply_seccomp(plan);
  if (!plan.broker_seccomp.empty()) apply_broker_filter(plan);
  if (plan.exec_in_place) exec_command(plan);

  // Signals paddock forwards reach the command through this init.
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = forward_signal;
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT})
    sigaction(sig, &sa, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  // The init is a copy of paddock (its memory and /proc/1/environ hold paddock's unscrubbed
  // environment): not dumpable, so the command can neither read its /proc files nor ptrace it.
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) fail("not dumpable", "");
  // A raw clone: glibc's fork() would run atfork handlers that may take locks another thread of
  // the original process held at clone time.
  long pid = sys::clone_fork(0, nullptr);
  if (pid < 0) fail("fork command", "");
  if (pid == 0) {
    if (plan.landlock.abi > 0 && plan.fallback_subreaper) apply_landlock(plan.landlock);
    exec_command(plan);
  }
  g_command_pid = static_cast<pid_t>(pid);

  // The init keeps only the report pipe (and its way out of the cgroups): no stdio, no pty, no
  // capture pipes, so the parent sees EOF on them exactly when the command side is done.
  close_all_but(plan.report_fd, plan.cgroup_leave_fds);
  send(ChildMessage::Started, 0, static_cast<int>(pid), "", "");

  int status = 0;
  for (;;) {
    int st = 0;
    pid_t r = waitpid(-1, &st, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD
    }
    if (r == pid) {
      status = st;
      break;
    }
  }
  g_command_pid = 0;
  bool left = false;
  if (plan.fallback_subreaper) sweep_descendants();
  if (plan.namespaces) {
    // The run ends with the command: kill what it left behind and reap everything, so that the
    // messages below mean "no sandboxed process is alive" (kill(-1) spares only this init).
    kill(-1, SIGKILL);
    while (wait4(-1, nullptr, __WALL, nullptr) > 0 || errno == EINTR) {
    }
    // Nothing sandboxed is left: leave the run's cgroups, so that they can be removed without
    // waiting for this process's exit (ResourceControl::leave_fds()).
    left = !plan.cgroup_leave_fds.empty();
    for (int fd : plan.cgroup_leave_fds)
      if (!sys::write_all(fd, "0", 1)) left = false;
    send_usage();
  }
  // In its own pid namespace, the last pid handed out is the number of processes started
  // (pid 1 is this init). Reported with the exit status.
  int started = 0;
  if (plan.namespaces) {
    int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[24];
      ssize_t n = read(fd, buf, sizeof(buf) - 1);
      close(fd);
      for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) started = started * 10 + (buf[i] - '0');
      if (started > 0) started -= 1;
    }
  }
  send(ChildMessage::ExitStatus, started, status, "", left ? kLeftCgroups : "");
  _exit(0);
}

}  // namespace paddock::engine
