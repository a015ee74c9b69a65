#include "net/io.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace paddock::net {

int Deadline::remaining_ms() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at - std::chrono::steady_clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

bool wait_ready(int fd, short events, Deadline dl, int stop_fd) {
  while (true) {
    pollfd p[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
    int n = ::poll(p, stop_fd >= 0 ? 2 : 1, dl.remaining_ms());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (stop_fd >= 0 && (p[1].revents & POLLIN)) return false;
    if (p[0].revents & (events | POLLERR | POLLHUP)) return true;
  }
}

bool read_some(int fd, std::string& buf, std::size_t max, Deadline dl, int stop_fd) {
  char tmp[16384];
  if (max > sizeof(tmp)) max = sizeof(tmp);
  while (true) {
    ssize_t n = ::recv(fd, tmp, max, 0);
    if (n > 0) {
      buf.append(tmp, static_cast<std::size_t>(n));
      return true;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
    if (!wait_ready(fd, POLLIN, dl, stop_fd)) return false;
  }
}

bool read_at_least(int fd, std::string& buf, std::size_t n, Deadline dl, int stop_fd) {
  while (buf.size() < n) {
    if (!read_some(fd, buf, n - buf.size(), dl, stop_fd)) return false;
  }
  return true;
}

bool write_all(int fd, std::string_view data, Deadline dl, int stop_fd) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd, POLLOUT, dl, stop_fd)) return false;
      continue;
    }
    return false;
  }
  return true;
}

void set_nonblocking(int fd) {
  int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0 && !(fl & O_NONBLOCK)) ::fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace paddock::net
