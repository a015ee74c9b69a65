// paddock-probe: the program kernel tests run *inside* sandboxes to try things. Each subcommand
// attempts one operation and prints "OK ..." (exit 0) or "DENIED <errno-name> ..." (exit 1).
// It never decides whether the result is good; the tests do.
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include <string>

extern char** environ;

int probe_seccomp_check(int argc, char** argv);  // probe_seccomp.cc
int probe_refuse(int argc, char** argv);         // probe_refuse.cc

namespace {

int report(long rc, const char* what) {
  if (rc >= 0) {
    printf("OK %s\n", what);
    return 0;
  }
  int e = errno;
  printf("DENIED %s %s\n", strerrorname_np(e) ? strerrorname_np(e) : "?", what);
  return 1;
}

// Every way to give a file a set-id mode, in directory `dir`, each with valid arguments that
// succeed without paddock's filter: one line "NAME OK" or "NAME <ERRNO>" each (issue 12, item 3).
int cmd_setid(const char* dir) {
  std::string d = dir;
  auto line = [](const char* name, long rc) {
    int e = errno;
    printf("%s %s\n", name, rc >= 0 ? "OK" : (strerrorname_np(e) ? strerrorname_np(e) : "?"));
  };
  std::string f = d + "/setid-target";
  int fd = open(f.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (fd < 0) return report(-1, f.c_str());
  line("chmod-plain", chmod(f.c_str(), 0750));  // the control: an ordinary mode works
  line("chmod", chmod(f.c_str(), 04755));
  line("chmod-sgid", chmod(f.c_str(), 02755));
  line("fchmod", fchmod(fd, 04755));
  line("fchmodat", syscall(SYS_fchmodat, AT_FDCWD, f.c_str(), 04755));
  line("fchmodat2", syscall(452 /*fchmodat2*/, AT_FDCWD, f.c_str(), 04755, 0));
  close(fd);
  line("creat", creat((d + "/setid-creat").c_str(), 04755));
  line("open-creat", syscall(SYS_open, (d + "/setid-open").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 02755));
  line("openat-creat", syscall(SYS_openat, AT_FDCWD, (d + "/setid-openat").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 04755));
  line("openat-tmpfile", syscall(SYS_openat, AT_FDCWD, d.c_str(), O_WRONLY | O_TMPFILE | O_CLOEXEC, 04755));
  line("mknod", mknod((d + "/setid-mknod").c_str(), S_IFREG | 04755, 0));
  line("mknodat", syscall(SYS_mknodat, AT_FDCWD, (d + "/setid-mknodat").c_str(), S_IFREG | 02755, 0));
  line("mkdir", mkdir((d + "/setid-dir").c_str(), 02755));
  line("mkdirat", syscall(SYS_mkdirat, AT_FDCWD, (d + "/setid-dirat").c_str(), 02755));
  struct {
    unsigned long long flags, mode, resolve;
  } how = {O_WRONLY | O_CREAT | O_CLOEXEC, 04755, 0};
  line("openat2", syscall(437 /*openat2*/, AT_FDCWD, (d + "/setid-openat2").c_str(), &how, sizeof(how)));
  line("open-plain", syscall(SYS_open, f.c_str(), O_RDONLY | O_CLOEXEC, 04755));  // mode unused: must work
  return 0;
}

int cmd_read(const char* path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return report(-1, path);
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  if (n < 0) return report(-1, path);
  printf("OK %s ", path);
  fwrite(buf, 1, static_cast<size_t>(n), stdout);
  printf("\n");
  return 0;
}

int cmd_write(const char* path, const char* content) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return report(-1, path);
  ssize_t n = write(fd, content, strlen(content));
  close(fd);
  return report(n < 0 ? -1 : 0, path);
}

int connect_tcp(const char* host, int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return report(-1, "socket");
  sockaddr_in sa = {};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host, &sa.sin_addr);
  int rc = connect(s, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  close(s);
  return report(rc, "connect");
}

int connect_unix(const char* name, bool abstract) {
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return report(-1, "socket");
  sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  size_t len = strlen(name);
  if (len >= sizeof(sa.sun_path) - 1) len = sizeof(sa.sun_path) - 2;
  memcpy(sa.sun_path + (abstract ? 1 : 0), name, len);
  socklen_t sl = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len + (abstract ? 1 : 0));
  int rc = connect(s, reinterpret_cast<sockaddr*>(&sa), sl);
  close(s);
  return report(rc, "connect");
}

int daemonize(const char* pidfile, int seconds) {
  pid_t p = fork();
  if (p < 0) return report(-1, "fork");
  if (p > 0) {
    waitpid(p, nullptr, 0);
    // Give the grandchild time to write its pid.
    for (int i = 0; i < 100; ++i) {
      if (access(pidfile, F_OK) == 0) break;
      usleep(10000);
    }
    printf("OK daemonized\n");
    return 0;
  }
  setsid();
  if (fork() != 0) _exit(0);
  // The grandchild: orphaned, in its own session.
  std::string tmp = std::string(pidfile) + ".tmp";
  FILE* f = fopen(tmp.c_str(), "w");
  if (f) {
    fprintf(f, "%d\n", getpid());
    fclose(f);
    rename(tmp.c_str(), pidfile);
  }
  for (int i = 0; i < 3; ++i) close(i);
  sleep(static_cast<unsigned>(seconds));
  _exit(0);
}

int list_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return report(-1, "/proc/self/fd");
  int self = dirfd(d);
  printf("OK fds");
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (atoi(e->d_name) == self) continue;
    printf(" %s", e->d_name);
  }
  printf("\n");
  closedir(d);
  return 0;
}

int count_procs() {
  DIR* d = opendir("/proc");
  if (!d) return report(-1, "/proc");
  int n = 0;
  while (dirent* e = readdir(d))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') ++n;
  closedir(d);
  printf("OK procs %d\n", n);
  return 0;
}

int int80_getpid() {
#if defined(__x86_64__)
  long ret;
  // i386 ABI: getpid is syscall 20 through int 0x80.
  asm volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
  if (ret < 0) {
    errno = static_cast<int>(-ret);
    return report(-1, "int80");
  }
  printf("OK int80 %ld\n", ret);
  return 0;
#else
  printf("SKIP not x86_64\n");
  return 2;
#endif
}

int x32_getpid() {
#if defined(__x86_64__)
  long ret = syscall(0x40000000L | 39L);  // __X32_SYSCALL_BIT | getpid
  return report(ret, "x32");
#else
  printf("SKIP not x86_64\n");
  return 2;
#endif
}

// Execs PATH ARGS... in a child whose stdin is an open, empty pipe (so a password prompt waits),
// then reads the child's /proc/PID/status once the exec has happened: prints its Uid:, CapEff:
// and CapPrm: lines. A setuid binary that gained privilege shows an effective uid different from
// the real one, or capabilities.
int suid_exec(int argc, char** argv) {
  int in[2];
  if (pipe(in) != 0) return report(-1, "pipe");
  struct stat before;
  if (stat(argv[0], &before) != 0) return report(-1, argv[0]);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  (void)argc;
  std::string status_path = "/proc/" + std::to_string(pid) + "/status";
  std::string exe_path = "/proc/" + std::to_string(pid) + "/exe";
  std::string uid, cap, prm;
  bool seen = false, exited = false;
  for (int i = 0; i < 20000 && !seen; ++i) {  // up to ~20 s on a loaded machine
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      exited = true;  // gone before it could be observed
      break;
    }
    char target[4096];
    ssize_t n = readlink(exe_path.c_str(), target, sizeof(target) - 1);
    if (n > 0) {
      target[n] = 0;
      struct stat now;
      // The exec happened once /proc/PID/exe is the target binary.
      if (stat(target, &now) == 0 && now.st_ino == before.st_ino && now.st_dev == before.st_dev) seen = true;
    } else if (errno == EACCES) {
      seen = true;  // not dumpable any more: the kernel treated it as a privilege change
    }
    if (!seen) usleep(1000);
  }
  FILE* f = fopen(status_path.c_str(), "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof(line), f)) {
      if (strncmp(line, "Uid:", 4) == 0) uid = line;
      if (strncmp(line, "CapEff:", 7) == 0) cap = line;
      if (strncmp(line, "CapPrm:", 7) == 0) prm = line;
    }
    fclose(f);
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  if (!seen) {
    printf("SKIP the exec was not observed\n");
    return 2;
  }
  printf("OK exec %s\n%s%s%s", argv[0], uid.c_str(), cap.c_str(), prm.c_str());
  return 0;
}

// term-record FILE: prints READY and waits; on SIGTERM writes "SIGTERM\n" to FILE, then dies of
// the signal with its default action (so the exit status is what it would be without a handler).
const char* g_term_record = nullptr;
void on_term(int sig) {
  int fd = open(g_term_record, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    if (write(fd, "SIGTERM\n", 8) < 0) {
    }
    close(fd);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}
int term_record(const char* file) {
  g_term_record = file;
  signal(SIGTERM, on_term);
  printf("READY\n");
  for (int i = 0; i < 600; ++i) sleep(1);
  return 3;
}

int usage() {
  fprintf(stderr, "usage: paddock-probe CMD [ARGS]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc < 2) return usage();
  std::string cmd = argv[1];
  auto arg = [&](int i) -> const char* { return i < argc ? argv[i] : ""; };
  if (cmd == "read") return cmd_read(arg(2));
  if (cmd == "write") return cmd_write(arg(2), argc > 3 ? arg(3) : "probe\n");
  if (cmd == "mkdir") return report(mkdir(arg(2), 0755), arg(2));
  if (cmd == "unlink") return report(unlink(arg(2)), arg(2));
  if (cmd == "rename") return report(rename(arg(2), arg(3)), arg(3));
  if (cmd == "link") return report(link(arg(2), arg(3)), arg(3));
  if (cmd == "symlink") return report(symlink(arg(2), arg(3)), arg(3));
  if (cmd == "chmod") return report(chmod(arg(2), static_cast<mode_t>(strtol(arg(3), nullptr, 8))), arg(2));
  if (cmd == "suid-exec") return argc > 2 ? suid_exec(argc - 2, argv + 2) : usage();
  if (cmd == "mknod") return report(mknod(arg(2), S_IFCHR | 0666, makedev(1, 3)), arg(2));
  if (cmd == "mkfifo") return report(mkfifo(arg(2), 0644), arg(2));
  if (cmd == "setid") return cmd_setid(arg(2));
  if (cmd == "seccomp-check") return probe_seccomp_check(argc - 2, argv + 2);
  if (cmd == "refuse") return probe_refuse(argc - 2, argv + 2);
  if (cmd == "pids") {
    printf("OK pid=%d ppid=%d\n", getpid(), getppid());
    return 0;
  }
  if (cmd == "exec") {
    execl(arg(2), arg(2), static_cast<char*>(nullptr));
    return report(-1, arg(2));
  }
  if (cmd == "stat") {
    struct stat st;
    return report(stat(arg(2), &st), arg(2));
  }
  if (cmd == "ptrace") return report(ptrace(PTRACE_ATTACH, atoi(arg(2)), nullptr, nullptr), "ptrace");
  if (cmd == "kill") return report(kill(atoi(arg(2)), atoi(arg(3))), "kill");
  if (cmd == "connect-tcp") return connect_tcp(arg(2), atoi(arg(3)));
  if (cmd == "connect-abstract") return connect_unix(arg(2), true);
  if (cmd == "connect-unix") return connect_unix(arg(2), false);
  if (cmd == "tiocsti") {
    char c = 'x';
    return report(ioctl(atoi(arg(2)), TIOCSTI, &c), "TIOCSTI");
  }
  if (cmd == "tiocsti-high") {
    char c = 'x';
    unsigned long req = 0x100000000UL | TIOCSTI;  // the kernel truncates to 32 bits
    return report(syscall(SYS_ioctl, atoi(arg(2)), req, &c), "TIOCSTI(high bits)");
  }
  if (cmd == "tioclinux") {
    char sub = 2;
    return report(ioctl(atoi(arg(2)), TIOCLINUX, &sub), "TIOCLINUX");
  }
  if (cmd == "unshare-user") return report(unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)");
  if (cmd == "unshare-mount") return report(unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)");
  if (cmd == "clone-user") {
    long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, nullptr);
    if (r == 0) _exit(0);
    if (r > 0) waitpid(static_cast<pid_t>(r), nullptr, 0);
    return report(r, "clone(CLONE_NEWUSER)");
  }
  if (cmd == "clone3") return report(syscall(435 /*clone3*/, nullptr, 0), "clone3");
  if (cmd == "mount-tmpfs") return report(mount("tmpfs", arg(2), "tmpfs", 0, nullptr), "mount");
  if (cmd == "umount") return report(umount2(arg(2), MNT_DETACH), "umount");
  if (cmd == "bpf") return report(syscall(SYS_bpf, 0, nullptr, 0), "bpf");
  if (cmd == "perf_event_open") return report(syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0), "perf_event_open");
  if (cmd == "userfaultfd") return report(syscall(SYS_userfaultfd, 0), "userfaultfd");
  if (cmd == "io_uring_setup") return report(syscall(425, 1, nullptr), "io_uring_setup");
  if (cmd == "keyctl") return report(syscall(SYS_keyctl, 0 /*GET_KEYRING_ID*/, -3, 0), "keyctl");
  if (cmd == "add_key") return report(syscall(SYS_add_key, "user", "probe", "x", 1, -3), "add_key");
  if (cmd == "open_by_handle_at") return report(syscall(SYS_open_by_handle_at, AT_FDCWD, nullptr, 0), "open_by_handle_at");
  if (cmd == "kexec_load") return report(syscall(SYS_kexec_load, 0, 0, nullptr, 0), "kexec_load");
  if (cmd == "init_module") return report(syscall(SYS_init_module, nullptr, 0, ""), "init_module");
  if (cmd == "int80") return int80_getpid();
  if (cmd == "x32") return x32_getpid();
  if (cmd == "fds") return list_fds();
  if (cmd == "procs") return count_procs();
  if (cmd == "env") {
    for (char** e = environ; *e; ++e) printf("%s\n", *e);
    return 0;
  }
  if (cmd == "ids") {
    printf("OK uid=%d gid=%d euid=%d\n", getuid(), getgid(), geteuid());
    return 0;
  }
  if (cmd == "status") return cmd_read("/proc/self/status");
  if (cmd == "daemon") return daemonize(arg(2), atoi(arg(3)));
  if (cmd == "sleep") {
    sleep(static_cast<unsigned>(atoi(arg(2))));
    return 0;
  }
  if (cmd == "ignore-term-sleep") {
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    sleep(static_cast<unsigned>(atoi(arg(2))));
    return 0;
  }
  if (cmd == "term-record") return term_record(arg(2));
  if (cmd == "exit") return atoi(arg(2));
  if (cmd == "raise") {
    signal(atoi(arg(2)), SIG_DFL);
    raise(atoi(arg(2)));
    return 99;
  }
  return usage();
}
