#include "engine/pty.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace paddock::engine {

Result<Pty> open_pty(int like_fd) {
  Pty p;
  p.master.reset(posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!p.master) return errno_error("posix_openpt", errno, "pty");
  if (grantpt(p.master.get()) < 0 || unlockpt(p.master.get()) < 0) return errno_error("unlockpt", errno, "pty");
  char name[128];
  if (ptsname_r(p.master.get(), name, sizeof(name)) != 0) return errno_error("ptsname", errno, "pty");
  p.slave.reset(open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!p.slave) return errno_error("open pty slave", errno, name);
  struct termios t;
  if (tcgetattr(like_fd, &t) == 0) tcsetattr(p.slave.get(), TCSANOW, &t);
  copy_window_size(like_fd, p.slave.get());
  return p;
}

RawMode::RawMode(int fd) : fd_(fd) {
  if (tcgetattr(fd_, &saved_) != 0) return;
  struct termios raw = saved_;
  cfmakeraw(&raw);
  if (tcsetattr(fd_, TCSANOW, &raw) == 0) active_ = true;
}

RawMode::~RawMode() {
  if (active_) tcsetattr(fd_, TCSAFLUSH, &saved_);
}

void copy_window_size(int from, int to) {
  struct winsize ws;
  if (ioctl(from, TIOCGWINSZ, &ws) == 0) ioctl(to, TIOCSWINSZ, &ws);
}

}  // namespace paddock::engine
