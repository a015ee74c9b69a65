// open_listener: async-signal-safe, for the engine's child inside the sandbox's namespace.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "net/egress.h"

namespace paddock::net {

int open_listener(const ListenSpec& spec) {
  int type = (spec.type == ListenSpec::Type::Tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC;
  int fd = ::socket(AF_INET, type, 0);
  if (fd < 0) return -1;
  int one = 1;
  if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = spec.addr_be;
  sa.sin_port = htons(spec.port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
      (spec.type == ListenSpec::Type::Tcp && ::listen(fd, 512) != 0)) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace paddock::net
