// Waiting I/O for the filter's handshake phase (reading a request head, a SOCKS request, writing
// a reply). Sockets are non-blocking; every wait has a deadline and also watches the filter's
// stop eventfd, so stop() never waits for an idle client.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace paddock::net {

struct Deadline {
  std::chrono::steady_clock::time_point at;
  static Deadline in(std::chrono::milliseconds d) { return {std::chrono::steady_clock::now() + d}; }
  int remaining_ms() const;
};

// Waits until fd is ready for `events` (POLLIN/POLLOUT). False on timeout, stop, or poll error.
bool wait_ready(int fd, short events, Deadline dl, int stop_fd);
// Appends up to `max` bytes to buf. False on EOF, error, timeout or stop.
bool read_some(int fd, std::string& buf, std::size_t max, Deadline dl, int stop_fd);
// Reads until buf holds at least n bytes. False on EOF, error, timeout or stop.
bool read_at_least(int fd, std::string& buf, std::size_t n, Deadline dl, int stop_fd);
bool write_all(int fd, std::string_view data, Deadline dl, int stop_fd);

void set_nonblocking(int fd);
void set_nodelay(int fd);

}  // namespace paddock::net
