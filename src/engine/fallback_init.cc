// See fallback_init.h. Async-signal-safe only: this runs in the sandbox's init, a clone of a
// possibly multi-threaded paddock, and partly inside a signal handler.
#include "engine/fallback_init.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "sys/raw_io.h"
#include "sys/syscalls.h"

namespace paddock::engine {
namespace {

// Parses decimal pids from `fd` into out (up to cap), from offset `have`. Returns the new count.
std::size_t parse_pids(int fd, pid_t* out, std::size_t have, std::size_t cap) {
  std::size_t n = have;
  long pid = 0;
  bool in_number = false;
  char buf[4096];
  for (;;) {
    ssize_t len = read(fd, buf, sizeof(buf));
    if (len < 0 && errno == EINTR) continue;
    if (len <= 0) break;
    for (ssize_t i = 0; i < len && n < cap; ++i) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        pid = pid * 10 + (buf[i] - '0');
        in_number = true;
      } else if (in_number) {
        if (pid > 0) out[n++] = static_cast<pid_t>(pid);
        pid = 0;
        in_number = false;
      }
    }
    if (n == cap) break;
  }
  if (in_number && pid > 0 && n < cap) out[n++] = static_cast<pid_t>(pid);
  return n;
}

// Without CONFIG_PROC_CHILDREN: every /proc/PID/stat whose parent field is us.
std::size_t scan_proc_for_children(pid_t self, pid_t* out, std::size_t cap) {
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  std::size_t n = 0;
  alignas(8) char buf[8192];
  for (;;) {
    long len = sys::getdents64(dir, buf, sizeof(buf));
    if (len <= 0) break;
    for (long off = 0; off < len && n < cap;) {
      struct Dirent {
        unsigned long long ino;
        long long off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const Dirent* d = reinterpret_cast<const Dirent*>(buf + off);
      off += d->reclen;
      long pid = 0;
      const char* c = d->name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0) continue;
      char path[64];
      std::size_t p = sys::append(path, sizeof(path), 0, d->name);
      sys::append(path, sizeof(path), p, "/stat");
      int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char st[512];
      ssize_t r = read(fd, st, sizeof(st) - 1);
      close(fd);
      if (r <= 0) continue;
      st[r] = '\0';
      const char* paren = nullptr;  // the command name may hold ')': the field ends at the last one
      for (const char* q = st; *q; ++q)
        if (*q == ')') paren = q;
      if (!paren || !paren[1] || !paren[2] || !paren[3]) continue;
      long ppid = 0;
      for (const char* q = paren + 4; *q >= '0' && *q <= '9'; ++q) ppid = ppid * 10 + (*q - '0');
      if (ppid == self) out[n++] = static_cast<pid_t>(pid);
    }
    if (n == cap) break;
  }
  close(dir);
  return n;
}

// Our children (live or zombie), up to cap.
std::size_t list_children(const char* children_file, pid_t* out, std::size_t cap) {
  int fd = open(children_file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return scan_proc_for_children(getpid(), out, cap);
  std::size_t n = parse_pids(fd, out, 0, cap);
  close(fd);
  return n;
}

void on_sweep_signal(int) {
  sweep_descendants();
  kill(getpid(), SIGKILL);
  _exit(137);
}

}  // namespace

int fallback_sweep_signal() { return SIGRTMAX; }

unsigned long sweep_descendants() {
  // Our children, as the kernel lists them for this (single-threaded) process's only task.
  char path[64];
  char num[24];
  std::size_t n = sys::append(path, sizeof(path), 0, "/proc/self/task/");
  sys::format_uint(num, sizeof(num), static_cast<unsigned long>(::gettid()));
  n = sys::append(path, sizeof(path), n, num);
  sys::append(path, sizeof(path), n, "/children");

  unsigned long reaped = 0;
  constexpr std::size_t kBatch = 512;
  pid_t pids[kBatch];
  for (int idle = 0;;) {
    std::size_t count = list_children(path, pids, kBatch);
    if (count == 0) {
      // Nothing listed: reap what may have died since, without blocking; done when there is no
      // child at all. (A child is listed from its reparenting until it is reaped, zombie or not,
      // so "children but none listed" is at most a moment.)
      pid_t r;
      while ((r = waitpid(-1, nullptr, WNOHANG | __WALL)) > 0 || (r < 0 && errno == EINTR)) {
        if (r > 0) ++reaped;
      }
      if ((r < 0 && errno == ECHILD) || ++idle > 1000) break;
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, nullptr);
      continue;
    }
    for (std::size_t i = 0; i < count; ++i) kill(pids[i], SIGKILL);
    // Wait for exactly the ones killed: their own children are ours by the time they are reaped,
    // and are listed (and killed) in the next round.
    for (std::size_t i = 0; i < count; ++i) {
      pid_t r;
      do {
        r = waitpid(pids[i], nullptr, __WALL);
      } while (r < 0 && errno == EINTR);
      if (r > 0) ++reaped;
    }
  }
  return reaped;
}

bool fallback_init_setup(pid_t parent, int sweep_signal) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) return false;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_sweep_signal;
  sigfillset(&sa.sa_mask);
  if (sigaction(sweep_signal, &sa, nullptr) < 0) return false;
  if (prctl(PR_SET_PDEATHSIG, sweep_signal, 0, 0, 0) < 0) return false;
  // paddock died before the death signal was set: we were reparented already.
  if (parent > 0 && getppid() != parent) on_sweep_signal(sweep_signal);
  return true;
}

}  // namespace paddock::engine
