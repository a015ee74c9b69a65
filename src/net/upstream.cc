#include "net/upstream.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "net/io.h"

namespace paddock::net {
namespace {

struct Resolved {
  std::vector<IpAddr> addrs;
  std::uint16_t port = 0;
  std::string error;
};

Resolved resolve(const std::string& host, const ResolveMap& map) {
  Resolved r;
  if (auto ip = IpAddr::parse(host)) {
    r.addrs.push_back(*ip);
    return r;
  }
  if (host == "localhost") {
    // The host's loopback by definition, whatever its resolver says (RFC 6761).
    r.addrs = {*IpAddr::parse("127.0.0.1"), *IpAddr::parse("::1")};
    return r;
  }
  if (!map.empty()) {
    auto it = map.find(host);
    if (it == map.end()) {
      r.error = "not in the --resolve map";
    } else {
      r.addrs = it->second.addrs;
      r.port = it->second.port;
    }
    return r;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0) {
    r.error = ::gai_strerror(rc);
    return r;
  }
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    IpAddr a = IpAddr::from_sockaddr(ai->ai_addr);
    bool dup = false;
    for (const auto& b : r.addrs) dup = dup || b == a;
    if (!dup) r.addrs.push_back(a);
  }
  ::freeaddrinfo(res);
  if (r.addrs.empty()) r.error = "no addresses";
  return r;
}

}  // namespace

UpstreamOutcome connect_upstream(const DomainPolicy& policy, const std::string& host,
                                 std::uint16_t port, const ResolveMap& map,
                                 std::chrono::milliseconds timeout, int stop_fd) {
  UpstreamOutcome out;
  Resolved res = resolve(host, map);
  if (res.addrs.empty()) {
    out.status = UpstreamOutcome::Status::Failed;
    out.error = "cannot resolve " + host + ": " + res.error;
    return out;
  }
  if (res.port != 0) port = res.port;
  std::vector<IpAddr> allowed;
  bool have_denial = false;
  bool literal = IpAddr::parse(host).has_value();
  // Read per connection, so an address added while the sandbox runs is refused too.
  const std::vector<IpAddr> own = host_interface_addresses();
  for (const auto& a : res.addrs) {
    Verdict v = policy.decide_address(a, literal ? std::string() : host, port, &own);
    if (v.allowed) {
      allowed.push_back(a);
    } else if (!have_denial) {
      out.verdict = v;
      have_denial = true;
    }
  }
  if (allowed.empty()) {
    out.status = UpstreamOutcome::Status::Denied;
    return out;
  }
  Deadline dl = Deadline::in(timeout);
  int last_err = 0;
  for (const auto& a : allowed) {
    sockaddr_storage ss;
    socklen_t len = to_sockaddr(a, port, &ss);
    sys::UniqueFd fd(::socket(a.family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) {
      last_err = errno;
      continue;
    }
    int rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&ss), len);
    if (rc != 0 && errno == EINPROGRESS) {
      if (!wait_ready(fd.get(), POLLOUT, dl, stop_fd)) {
        last_err = ETIMEDOUT;
        continue;
      }
      int so_err = 0;
      socklen_t sl = sizeof(so_err);
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_err, &sl);
      rc = so_err == 0 ? 0 : -1;
      errno = so_err;
    }
    if (rc != 0) {
      last_err = errno;
      continue;
    }
    set_nodelay(fd.get());
    out.status = UpstreamOutcome::Status::Connected;
    out.fd = std::move(fd);
    out.addr = a;
    return out;
  }
  out.status = UpstreamOutcome::Status::Failed;
  out.err = last_err;
  out.error = "cannot connect to " + join_host_port(host, port) + ": " + std::strerror(last_err);
  return out;
}

}  // namespace paddock::net
