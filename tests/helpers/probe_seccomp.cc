// paddock-probe seccomp-check: which syscalls a seccomp filter above this process refuses, and
// with which errno, without running any of them.
//
// usage: paddock-probe seccomp-check LABEL:NR:A0,A1,A2,A3,A4,A5 ...
// prints one line per check: "LABEL ALLOWED", "LABEL DENIED <ERRNO-NAME>" or "LABEL ERROR <what>".
//
// How: each check runs in a forked child that installs a filter of its own answering the one
// syscall number with SECCOMP_RET_USER_NOTIF; a supervisor thread (started before the filter, so
// outside it) answers every notification with "success, 0" without running the call. The kernel
// runs every filter and keeps the most severe action, and ERRNO outranks USER_NOTIF: the call
// fails only if a filter above (paddock's) refuses it, and then with exactly that filter's errno.
// Outside any sandbox every check answers ALLOWED. The arguments are raw numbers: pointers are
// never dereferenced, since the call never reaches the kernel's implementation.
//
// Where paddock's filter already has a listener (its denylist answered by its supervisor, which
// counts each refusal: a task's filters may hold one listener, so ours gets EBUSY), the check
// installs a filter returning SECCOMP_RET_TRACE instead: with no tracer attached the kernel skips
// the call and returns ENOSYS, and USER_NOTIF outranks TRACE, so paddock's refusal (its
// supervisor's errno) still wins. An ENOSYS answer is then ambiguous (not run, or refused with
// ENOSYS): the check prints "LABEL NOT-RUN", and the test tells the two apart by paddock's record
// of what it refused (the run report's `denials`).
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kNativeArch = 0;
#endif

struct Check {
  std::string label;
  long nr = -1;
  std::uint64_t args[6] = {0, 0, 0, 0, 0, 0};
};

bool parse(const char* spec, Check* c) {
  std::string s = spec;
  std::size_t a = s.find(':');
  if (a == std::string::npos) return false;
  std::size_t b = s.find(':', a + 1);
  if (b == std::string::npos) return false;
  c->label = s.substr(0, a);
  c->nr = strtol(s.substr(a + 1, b - a - 1).c_str(), nullptr, 0);
  std::string rest = s.substr(b + 1);
  int i = 0;
  std::size_t pos = 0;
  while (pos <= rest.size() && i < 6) {
    std::size_t comma = rest.find(',', pos);
    if (comma == std::string::npos) comma = rest.size();
    std::string v = rest.substr(pos, comma - pos);
    if (!v.empty()) c->args[i] = strtoull(v.c_str(), nullptr, 0);
    ++i;
    pos = comma + 1;
  }
  return c->nr >= 0;
}

int g_fd_pipe[2] = {-1, -1};

// The supervisor: answers every notification "success, return value 0".
void* supervise(void*) {
  int fd = -1;
  if (read(g_fd_pipe[0], &fd, sizeof(fd)) != static_cast<ssize_t>(sizeof(fd)) || fd < 0) return nullptr;
  for (;;) {
    struct seccomp_notif req;
    memset(&req, 0, sizeof(req));
    if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
      if (errno == EINTR) continue;
      return nullptr;
    }
    struct seccomp_notif_resp resp;
    memset(&resp, 0, sizeof(resp));
    resp.id = req.id;
    resp.val = 0;
    resp.error = 0;
    resp.flags = 0;
    ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
  }
}

struct Outcome {
  long rc;
  int err;
  int stage;  // 0: the call was made; 1: no_new_privs; 2: thread; 3: listener; 4: made under TRACE
};

[[noreturn]] void send_outcome(int out_fd, const Outcome& o) {
  if (write(out_fd, &o, sizeof(o)) < 0) {
  }
  _exit(0);
}

// In the forked child: never returns.
[[noreturn]] void run_check(const Check& c, int out_fd) {
  Outcome o = {0, 0, 0};
  auto finish = [&]() { send_outcome(out_fd, o); };
  alarm(20);  // a supervisor that never answers must not hang the test
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
    o = {-1, errno, 1};
    finish();
  }
  pthread_t t;
  if (pipe(g_fd_pipe) < 0 || pthread_create(&t, nullptr, supervise, nullptr) != 0) {
    o = {-1, errno, 2};
    finish();
  }
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(c.nr), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (fd < 0 && errno == EBUSY) {
    // A filter above holds the task's one listener: the TRACE technique (see the top).
    filter[5] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
      o = {-1, errno, 3};
      finish();
    }
    errno = 0;
    long rc = syscall(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5]);
    o = {rc, rc < 0 ? errno : 0, 4};
    send_outcome(out_fd, o);
  }
  if (fd < 0) {
    o = {-1, errno, 3};
    finish();
  }
  int ifd = static_cast<int>(fd);
  if (write(g_fd_pipe[1], &ifd, sizeof(ifd)) != static_cast<ssize_t>(sizeof(ifd))) {
    o = {-1, errno, 2};
    finish();
  }
  errno = 0;
  long rc = syscall(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5]);
  o = {rc, rc < 0 ? errno : 0, 0};
  send_outcome(out_fd, o);
}

const char* errname(int e) {
  const char* n = strerrorname_np(e);
  return n ? n : "?";
}

}  // namespace

int probe_seccomp_check(int argc, char** argv) {
  if (kNativeArch == 0) {
    printf("SKIP no native audit arch known to the probe\n");
    return 2;
  }
  int bad = 0;
  for (int i = 0; i < argc; ++i) {
    Check c;
    if (!parse(argv[i], &c)) {
      printf("%s ERROR bad-spec\n", argv[i]);
      ++bad;
      continue;
    }
    int p[2];
    if (pipe(p) < 0) {
      printf("%s ERROR pipe %s\n", c.label.c_str(), errname(errno));
      ++bad;
      continue;
    }
    pid_t pid = fork();
    if (pid < 0) {
      printf("%s ERROR fork %s\n", c.label.c_str(), errname(errno));
      close(p[0]);
      close(p[1]);
      ++bad;
      continue;
    }
    if (pid == 0) {
      close(p[0]);
      run_check(c, p[1]);
    }
    close(p[1]);
    Outcome o;
    ssize_t n;
    do {
      n = read(p[0], &o, sizeof(o));
    } while (n < 0 && errno == EINTR);
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (n != static_cast<ssize_t>(sizeof(o))) {
      printf("%s ERROR no-result status=%d\n", c.label.c_str(), st);
      ++bad;
    } else if (o.stage == 1) {
      printf("%s ERROR no_new_privs %s\n", c.label.c_str(), errname(o.err));
      ++bad;
    } else if (o.stage == 2) {
      printf("%s ERROR thread %s\n", c.label.c_str(), errname(o.err));
      ++bad;
    } else if (o.stage == 3) {
      printf("%s ERROR listener %s\n", c.label.c_str(), errname(o.err));
      ++bad;
    } else if (o.stage == 4 && o.rc < 0 && o.err == ENOSYS) {
      printf("%s NOT-RUN\n", c.label.c_str());
    } else if (o.stage == 4 && o.rc >= 0) {
      printf("%s ERROR ran-under-trace\n", c.label.c_str());  // a tracer resumed it: no verdict
      ++bad;
    } else if (o.rc < 0) {
      printf("%s DENIED %s\n", c.label.c_str(), errname(o.err));
    } else {
      printf("%s ALLOWED\n", c.label.c_str());
    }
  }
  return bad == 0 ? 0 : 3;
}
