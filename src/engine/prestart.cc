#include "engine/prestart.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "sys/netif.h"
#include "sys/raw_io.h"
#include "sys/syscalls.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

namespace paddock {
namespace {

bool write_file(const char* path, const char* data) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = sys::write_all(fd, data, std::strlen(data));
  int saved = errno;
  close(fd);
  errno = saved;
  return ok;
}

// The helper: async-signal-safe only (the caller may have other threads). It holds nothing of
// the caller's (every descriptor but the status pipe is closed) and dies with it.
[[noreturn]] void helper_main(int status_fd, pid_t parent, const char* umap, const char* gmap) {
  int err = 0;
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent) _exit(1);
  if (status_fd > 0) sys::close_range(0, static_cast<unsigned>(status_fd - 1), 0);
  sys::close_range(static_cast<unsigned>(status_fd + 1), ~0U, 0);
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
    err = errno;
  } else if (!write_file("/proc/self/setgroups", "deny") && errno != ENOENT) {
    err = errno;
  } else if (!write_file("/proc/self/uid_map", umap) || !write_file("/proc/self/gid_map", gmap)) {
    err = errno;
  } else {
    err = sys::loopback_up();
  }
  sys::write_all(status_fd, &err, sizeof(err));
  if (err != 0) _exit(1);
  for (;;) pause();  // until take() or the caller's death kills it
}

}  // namespace

std::shared_ptr<Prestart> Prestart::begin() {
  char umap[48], gmap[48];
  std::snprintf(umap, sizeof(umap), "%u %u 1\n", getuid(), getuid());
  std::snprintf(gmap, sizeof(gmap), "%u %u 1\n", getgid(), getgid());
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return nullptr;
  pid_t parent = getpid();
  int pidfd = -1;
  sys::Clone3Args args = {};
  args.flags = CLONE_PIDFD;
  args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  long pid = sys::clone3(&args);
  if (pid < 0 && errno == ENOSYS) pid = sys::clone_fork(0, nullptr);
  if (pid == 0) helper_main(p[1], parent, umap, gmap);
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    return nullptr;
  }
  std::shared_ptr<Prestart> pre(new Prestart);
  pre->pid_ = static_cast<pid_t>(pid);
  pre->pidfd_.reset(pidfd);
  pre->status_.reset(p[0]);
  return pre;
}

bool Prestart::take(sys::UniqueFd& userns, sys::UniqueFd& netns) {
  if (taken_ || pid_ <= 0) return false;
  taken_ = true;
  int err = -1;
  std::size_t got = 0;
  while (got < sizeof(err)) {
    ssize_t n = read(status_.get(), reinterpret_cast<char*>(&err) + got, sizeof(err) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  bool ok = got == sizeof(err) && err == 0;
  if (ok) {
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%d/ns/user", static_cast<int>(pid_));
    userns.reset(open(path, O_RDONLY | O_CLOEXEC));
    std::snprintf(path, sizeof(path), "/proc/%d/ns/net", static_cast<int>(pid_));
    netns.reset(open(path, O_RDONLY | O_CLOEXEC));
    ok = userns && netns;
  }
  stop();  // the descriptors keep the namespaces alive
  if (!ok) {
    userns.reset();
    netns.reset();
  }
  return ok;
}

void Prestart::stop() {
  if (pid_ <= 0) return;
  if (pidfd_) sys::pidfd_send_signal(pidfd_.get(), SIGKILL);
  else kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

Prestart::~Prestart() { stop(); }

}  // namespace paddock
