// Test-only: a child process in its own user and network namespace (loopback only), playing the
// sandbox. It creates the filter's listeners inside the namespace the way the engine's child
// does, passes them back over SCM_RIGHTS, then on request opens client sockets inside the
// namespace and passes those back too, so the test drives "sandbox" clients from this process.
// Header-only; included by *_test.cc only.
#pragma once

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "net/address.h"
#include "net/egress.h"
#include "sys/unique_fd.h"

namespace paddock::net::testing {

struct NsRequest {
  int op;  // 1: TCP connect, 2: UDP socket connected, 3: TCP connect to [::1] (addr_be unused)
  std::uint32_t addr_be;
  std::uint16_t port;
};

inline bool send_fds(int sock, const int* fds, int n, int err) {
  msghdr msg{};
  iovec iov{&err, sizeof(err)};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 64)];
  if (n > 0) {
    msg.msg_control = cbuf;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(n));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(n));
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<std::size_t>(n));
  }
  return ::sendmsg(sock, &msg, MSG_NOSIGNAL) >= 0;
}

inline int recv_fds(int sock, std::vector<sys::UniqueFd>* out) {
  int err = -1;
  msghdr msg{};
  iovec iov{&err, sizeof(err)};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 64)];
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof(cbuf);
  if (::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) <= 0) return EPIPE;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < n; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      out->emplace_back(fd);
    }
  }
  return err;
}

class Netns {
 public:
  // Forks the namespace child. On failure returns nullopt and says why (for GTEST_SKIP).
  static std::optional<Netns> start(const std::vector<ListenSpec>& specs, std::vector<sys::UniqueFd>* listeners,
                                    std::string* why) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
      *why = "socketpair failed";
      return std::nullopt;
    }
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(sv[0]);
      child(sv[1], specs);
    }
    ::close(sv[1]);
    Netns ns;
    ns.sock_.reset(sv[0]);
    ns.pid_ = pid;
    int err = recv_fds(ns.sock_.get(), listeners);
    if (err != 0) {
      *why = std::string("cannot create a user+network namespace with the listeners: ") + std::strerror(err);
      return std::nullopt;
    }
    return ns;
  }

  Netns() = default;
  Netns(Netns&& o) noexcept : sock_(std::move(o.sock_)), pid_(std::exchange(o.pid_, -1)) {}
  Netns& operator=(Netns&& o) noexcept {
    if (this != &o) {
      finish();
      sock_ = std::move(o.sock_);
      pid_ = std::exchange(o.pid_, -1);
    }
    return *this;
  }
  ~Netns() { finish(); }
  void finish() {
    sock_.reset();
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // A socket inside the namespace, connected (TCP) or aimed (UDP) at addr:port; errno on failure.
  sys::UniqueFd open(int op, std::uint32_t addr_host_order, std::uint16_t port, int* err) {
    NsRequest r{op, htonl(addr_host_order), port};
    if (::send(sock_.get(), &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r)) {
      *err = EPIPE;
      return {};
    }
    std::vector<sys::UniqueFd> fds;
    *err = recv_fds(sock_.get(), &fds);
    if (*err != 0 || fds.empty()) return {};
    timeval tv{10, 0};
    ::setsockopt(fds[0].get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    return std::move(fds[0]);
  }
  sys::UniqueFd tcp(std::uint32_t addr, std::uint16_t port, int* err) { return open(1, addr, port, err); }
  sys::UniqueFd udp(std::uint32_t addr, std::uint16_t port, int* err) { return open(2, addr, port, err); }
  sys::UniqueFd tcp6_loopback(std::uint16_t port, int* err) { return open(3, 0, port, err); }

 private:
  [[noreturn]] static void child(int sock, const std::vector<ListenSpec>& specs) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
      send_fds(sock, nullptr, 0, errno);
      ::_exit(1);
    }
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (s < 0 || ::ioctl(s, SIOCGIFFLAGS, &ifr) != 0 ||
        (ifr.ifr_flags |= IFF_UP, ::ioctl(s, SIOCSIFFLAGS, &ifr) != 0)) {
      send_fds(sock, nullptr, 0, errno);
      ::_exit(1);
    }
    ::close(s);
    int fds[64];
    int n = 0;
    for (const auto& spec : specs) {
      int fd = open_listener(spec);
      if (fd < 0 && spec.optional) fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        send_fds(sock, nullptr, 0, errno);
        ::_exit(1);
      }
      fds[n++] = fd;
    }
    send_fds(sock, fds, n, 0);
    for (int i = 0; i < n; ++i) ::close(fds[i]);
    NsRequest r;
    while (::recv(sock, &r, sizeof(r), 0) == sizeof(r)) {
      const bool v6 = r.op == 3;
      int fd = ::socket(v6 ? AF_INET6 : AF_INET, (r.op == 2 ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
      IpAddr to = v6 ? *IpAddr::parse("::1") : IpAddr::v4(ntohl(r.addr_be));
      sockaddr_storage ss{};
      socklen_t len = to_sockaddr(to, r.port, &ss);
      if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
        int e = errno;
        if (fd >= 0) ::close(fd);
        send_fds(sock, nullptr, 0, e);
        continue;
      }
      send_fds(sock, &fd, 1, 0);
      ::close(fd);
    }
    ::_exit(0);
  }

  sys::UniqueFd sock_;
  pid_t pid_ = -1;
};

}  // namespace paddock::net::testing
