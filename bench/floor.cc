// The kernel floor for bench/startup.sh: the least work any tool must do to run /bin/true with
// the isolation of paddock's default policy, and nothing else. No policy, no planning, no
// Landlock, no seccomp, no messages, no cleanup beyond what the kernel does: clone into new
// user, mount, pid, ipc, uts, network and cgroup namespaces, map the caller's ids, bring up
// loopback, build a tmpfs root with the same mounts (system directories read-only, the cwd
// read-write, tmpfs /tmp and HOME, a fresh /proc, /dev nodes), pivot into it, fork and exec the
// command from pid 1, and wait for pid 1 to report the command's exit (like paddock, not for the
// namespaces' teardown). Whatever paddock or bubblewrap spend above this is theirs; what
// this spends is the kernel's.
//
// usage: paddock-floor [--share-net] COMMAND [ARGS...]   (run in the project directory, HOME set)
//   --share-net: no network namespace, to show what that one costs.
#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

[[noreturn]] void die(const char* what, const std::string& arg = "") {
  std::fprintf(stderr, "paddock-floor: %s %s: %s\n", what, arg.c_str(), std::strerror(errno));
  _exit(125);
}

void write_file(const char* path, const std::string& text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) die("write", path);
  close(fd);
}

void dir(const std::string& p) {
  if (mkdir(p.c_str(), 0755) < 0 && errno != EEXIST) die("mkdir", p);
}

void mkdirs(const std::string& p) {
  for (std::size_t i = 1; i <= p.size(); ++i)
    if (i == p.size() || p[i] == '/') dir(p.substr(0, i));
}

void bind(const std::string& src, const std::string& dst, bool readonly) {
  mkdirs(dst);
  if (mount(src.c_str(), dst.c_str(), nullptr, MS_BIND | MS_REC, nullptr) < 0) die("bind", src);
  if (readonly && mount(nullptr, dst.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) < 0)
    die("remount read-only", dst);
}

void tmpfs(const std::string& dst) {
  mkdirs(dst);
  if (mount("tmpfs", dst.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) die("tmpfs", dst);
}

void loopback_up() {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) die("socket");
  struct ifreq ifr {};
  std::strcpy(ifr.ifr_name, "lo");
  if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) die("SIOCGIFFLAGS");
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) die("SIOCSIFFLAGS");
  close(s);
}

[[noreturn]] void child(char** argv, uid_t uid, gid_t gid, const std::string& cwd, const std::string& home,
                        int report, bool new_net) {
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
  write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
  if (new_net) loopback_up();
  if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) < 0) die("make mounts slaves");
  // New root on a scratch tmpfs, the host's root reachable below it until the pivot.
  if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) die("scratch tmpfs");
  if (chdir("/tmp") < 0) die("chdir");
  dir("newroot");
  dir("oldroot");
  if (syscall(SYS_pivot_root, ".", "oldroot") < 0) die("pivot_root", "scratch");
  if (chdir("/") < 0) die("chdir");
  tmpfs("/newroot");
  const std::string r = "/newroot", o = "/oldroot";
  for (const char* d : {"/usr", "/etc", "/opt", "/nix/store"}) {
    struct stat st {};
    if (stat((o + d).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) bind(o + d, r + d, true);
  }
  for (const char* d : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    char target[256];
    ssize_t n = readlink((o + d).c_str(), target, sizeof target - 1);
    if (n > 0) {
      target[n] = '\0';
      if (symlink(target, (r + d).c_str()) < 0) die("symlink", d);
    } else {
      struct stat st {};
      if (stat((o + d).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) bind(o + d, r + d, true);
    }
  }
  tmpfs(r + "/tmp");
  tmpfs(r + home);
  bind(o + cwd, r + cwd, false);  // after the tmpfs mounts, which may be its parents
  mkdirs(r + "/proc");
  if (mount("proc", (r + "/proc").c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) < 0) die("proc");
  tmpfs(r + "/dev");
  for (const char* d : {"null", "zero", "full", "random", "urandom", "tty"}) {
    const std::string dst = r + "/dev/" + d;
    int fd = open(dst.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) die("create", dst);
    close(fd);
    if (mount((o + "/dev/" + d).c_str(), dst.c_str(), nullptr, MS_BIND, nullptr) < 0) die("bind", dst);
  }
  if (umount2("/oldroot", MNT_DETACH) < 0) die("detach", "/oldroot");
  if (chdir("/newroot") < 0) die("chdir");
  if (syscall(SYS_pivot_root, ".", ".") < 0) die("pivot_root");
  if (umount2(".", MNT_DETACH) < 0) die("detach", "scratch");
  if (chdir(cwd.c_str()) < 0) die("chdir", cwd);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    close(report);
    execvp(argv[0], argv);
    die("exec", argv[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const unsigned char code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (write(report, &code, 1) != 1) die("report");
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  const bool new_net = !(argc > 1 && std::strcmp(argv[1], "--share-net") == 0);
  if (!new_net) {
    --argc;
    ++argv;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: paddock-floor [--share-net] COMMAND [ARGS...]\n");
    return 2;
  }
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) die("getcwd");
  const char* home = std::getenv("HOME");
  if (!home || home[0] != '/') {
    std::fprintf(stderr, "paddock-floor: HOME must be an absolute path\n");
    return 2;
  }
  int report[2];
  if (pipe2(report, O_CLOEXEC) < 0) die("pipe");
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  struct clone_args args {};
  args.flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP |
               (new_net ? CLONE_NEWNET : 0);
  args.exit_signal = SIGCHLD;
  long pid = syscall(SYS_clone3, &args, sizeof args);
  if (pid < 0) die("clone3");
  if (pid == 0) child(argv + 1, uid, gid, cwd, home, report[1], new_net);
  close(report[1]);
  unsigned char code = 0;
  ssize_t n;
  while ((n = read(report[0], &code, 1)) < 0 && errno == EINTR) {
  }
  if (n != 1) {
    std::fprintf(stderr, "paddock-floor: the sandbox failed before running the command\n");
    return 125;
  }
  return code;  // pid 1's own exit (namespace teardown) is not waited for, as in paddock
}
