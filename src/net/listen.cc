// open_listener: async-signal-safe, for the engine's child inside the sandbox's namespace.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "net/egress.h"
#include "net/refusal.h"

namespace paddock::net {

int listener_family(const ListenSpec& spec) {
  if (spec.type == ListenSpec::Type::Packet) return AF_PACKET;
  return spec.v6 ? AF_INET6 : AF_INET;
}

int open_listener(const ListenSpec& spec) {
  if (spec.type == ListenSpec::Type::Packet) return open_refusal_watch();
  int type = (spec.type == ListenSpec::Type::Tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC;
  int fd = ::socket(spec.v6 ? AF_INET6 : AF_INET, type, 0);
  if (fd < 0) return -1;
  int one = 1;
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (spec.v6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&ss);
    sa->sin6_family = AF_INET6;
    sa->sin6_addr = in6addr_any;
    sa->sin6_port = htons(spec.port);
    len = sizeof(sockaddr_in6);
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&ss);
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = spec.addr_be;
    sa->sin_port = htons(spec.port);
    len = sizeof(sockaddr_in);
  }
  if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
      (spec.v6 && ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 ||
      (spec.type == ListenSpec::Type::Tcp && ::listen(fd, 512) != 0)) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace paddock::net
