// The pseudo-terminal the sandbox gets when paddock's stdin is a terminal: nothing inside can
// reach the user's real terminal (no TIOCSTI into its input queue, no job-control games), while
// full-screen programs behave as outside. The parent relays bytes and window sizes.
#pragma once

#include <termios.h>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

struct Pty {
  sys::UniqueFd master;
  sys::UniqueFd slave;
};

// Opens a pty whose termios and window size copy `like_fd` (the user's terminal).
Result<Pty> open_pty(int like_fd);

// Puts a terminal in raw mode for the relay and restores it when destroyed.
class RawMode {
 public:
  explicit RawMode(int fd);
  ~RawMode();
  RawMode(const RawMode&) = delete;
  RawMode& operator=(const RawMode&) = delete;

 private:
  int fd_;
  bool active_ = false;
  struct termios saved_ {};
};

// Copies the window size of `from` to `to` (SIGWINCH relay).
void copy_window_size(int from, int to);

}  // namespace paddock::engine
