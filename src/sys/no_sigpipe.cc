#include "sys/no_sigpipe.h"

#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

namespace paddock::sys {

ssize_t write_without_sigpipe(int fd, const void* buf, std::size_t len) {
  sigset_t pipe_sig, old_mask, pending;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, &old_mask);
  const bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
  const ssize_t w = ::write(fd, buf, len);
  const int err = errno;
  if (w < 0 && err == EPIPE && !was_pending) {
    const timespec zero = {0, 0};
    (void)sigtimedwait(&pipe_sig, nullptr, &zero);
  }
  if (!sigismember(&old_mask, SIGPIPE)) pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = err;
  return w;
}

}  // namespace paddock::sys
