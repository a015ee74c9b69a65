// The egress filter: the listener plan, the sandbox's environment and resolv.conf, and the
// threads that serve the listeners (one acceptor thread with epoll that also answers DNS over
// UDP, one short-lived thread per connection for the handshake, one relay thread for the bytes).
#include "net/egress.h"

#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "net/host_rule.h"
#include "net/io.h"
#include "net/refusal.h"
#include "net/session.h"

namespace paddock::net {
namespace {

constexpr std::uint16_t kDnsPort = 53;
constexpr std::size_t kMaxHandlers = 1024;  // concurrent handshakes; more are closed at once

bool has_family(int fd, int family) {
  int domain = 0;
  socklen_t len = sizeof(domain);
  return fd >= 0 && ::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == family;
}

class Filter final : public EgressFilter {
 public:
  explicit Filter(std::unique_ptr<FilterCore> core) : core_(std::move(core)) {}
  ~Filter() override { stop(); }

  std::vector<ListenSpec> listeners() const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  std::string resolv_conf() const override { return "nameserver 127.0.0.1\noptions attempts:2 timeout:2\n"; }
  Result<void> serve(std::vector<sys::UniqueFd> sockets) override;
  void stop() override;
  std::vector<std::string> denied_hosts() const override { return core_->log.denied_targets(); }
  std::vector<DecisionRecord> decisions() const override { return core_->log.records(); }
  EgressStats stats() const override;

 private:
  void accept_loop();
  void spawn(ListenSpec::Role role, ListenSpec::Type type, sys::UniqueFd fd);
  void serve_udp(int fd);
  void read_refusals(int fd);

  std::unique_ptr<FilterCore> core_;
  std::vector<ListenSpec> specs_;
  std::vector<sys::UniqueFd> sockets_;
  sys::UniqueFd epoll_, stop_;
  std::thread acceptor_;
  bool serving_ = false;
  bool stopped_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t handlers_ = 0;
};

std::vector<ListenSpec> Filter::listeners() const {
  std::vector<ListenSpec> out;
  auto add = [&](ListenSpec::Type t, ListenSpec::Role k, std::uint32_t addr, std::uint16_t port,
                 std::string role) {
    ListenSpec s;
    s.type = t;
    s.kind = k;
    s.addr_be = htonl(addr);
    s.port = port;
    s.role = std::move(role);
    out.push_back(std::move(s));
  };
  std::uint16_t proxy = core_->options.proxy_port;
  add(ListenSpec::Type::Tcp, ListenSpec::Role::Proxy, INADDR_LOOPBACK, proxy, "proxy");
  add(ListenSpec::Type::Udp, ListenSpec::Role::Dns, INADDR_LOOPBACK, kDnsPort, "dns");
  add(ListenSpec::Type::Tcp, ListenSpec::Role::Dns, INADDR_LOOPBACK, kDnsPort, "dns-tcp");
  std::vector<std::uint16_t> ports = {80, 443};
  for (auto p : core_->policy.named_ports()) {
    // The proxy and DNS ports are taken on 127.0.0.1; a wildcard bind there would collide.
    if (p != proxy && p != kDnsPort && std::find(ports.begin(), ports.end(), p) == ports.end()) {
      ports.push_back(p);
    }
  }
  for (auto p : ports) {
    add(ListenSpec::Type::Tcp, ListenSpec::Role::Transparent, INADDR_ANY, p,
        "transparent:" + std::to_string(p));
  }
  // IPv6 on the ports of rules that open ::1 ("localhost:8765", "[::1]:8765"): a client that
  // tries ::1 first (curl localhost:8765 where /etc/hosts has "::1 localhost") is taken there.
  for (auto p : core_->policy.named_ports()) {
    if (!core_->policy.decide_address(*IpAddr::parse("::1"), {}, p).allowed) continue;
    add(ListenSpec::Type::Tcp, ListenSpec::Role::Transparent, 0, p, "transparent6:" + std::to_string(p));
    out.back().v6 = true;
    out.back().optional = true;
  }
  add(ListenSpec::Type::Packet, ListenSpec::Role::Watch, 0, 0, "refusals");
  out.back().optional = true;
  return out;
}

std::vector<std::pair<std::string, std::string>> Filter::environment() const {
  std::string http = "http://127.0.0.1:" + std::to_string(core_->options.proxy_port);
  std::string socks = "socks5h://127.0.0.1:" + std::to_string(core_->options.proxy_port);
  std::string no_proxy = "localhost,127.0.0.1,::1";
  std::vector<std::pair<std::string, std::string>> env;
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY"}) env.emplace_back(name, http);
  env.emplace_back("ALL_PROXY", socks);
  env.emplace_back("NO_PROXY", no_proxy);
  for (const char* name : {"http_proxy", "https_proxy"}) env.emplace_back(name, http);
  env.emplace_back("all_proxy", socks);
  env.emplace_back("no_proxy", no_proxy);
  return env;
}

Result<void> Filter::serve(std::vector<sys::UniqueFd> sockets) {
  if (serving_) return make_error("the egress filter is already serving", "network");
  specs_ = listeners();
  if (sockets.size() != specs_.size()) {
    return make_error("expected " + std::to_string(specs_.size()) + " listening sockets, got " +
                          std::to_string(sockets.size()),
                      "network");
  }
  stop_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!stop_ || !epoll_) return errno_error("eventfd/epoll_create1", errno, "egress filter");
  core_->stop_fd = stop_.get();
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = ~0ull;
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, stop_.get(), &ev) != 0) {
    return errno_error("epoll_ctl", errno, "egress filter");
  }
  for (std::size_t i = 0; i < sockets.size(); ++i) {
    if (specs_[i].optional && !has_family(sockets[i].get(), listener_family(specs_[i]))) sockets[i].reset();
    if (!sockets[i]) continue;
    set_nonblocking(sockets[i].get());
    ev.data.u64 = i;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, sockets[i].get(), &ev) != 0) {
      return errno_error("epoll_ctl", errno, "egress filter: " + specs_[i].role);
    }
  }
  sockets_ = std::move(sockets);
  if (auto r = core_->relay.start(); !r) return r;
  try {
    acceptor_ = std::thread([this] { accept_loop(); });
  } catch (const std::system_error& e) {
    core_->relay.stop();
    return make_error(std::string("cannot start a thread: ") + e.what(), "egress filter");
  }
  serving_ = true;
  return ok_result();
}

void Filter::accept_loop() {
  epoll_event events[32];
  while (true) {
    int n = ::epoll_wait(epoll_.get(), events, 32, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < n; ++i) {
      std::uint64_t idx = events[i].data.u64;
      if (idx == ~0ull) return;  // stop
      const ListenSpec& spec = specs_[idx];
      int lfd = sockets_[idx].get();
      if (spec.type == ListenSpec::Type::Udp) {
        serve_udp(lfd);
        continue;
      }
      if (spec.type == ListenSpec::Type::Packet) {
        read_refusals(lfd);
        continue;
      }
      for (int k = 0; k < 64; ++k) {
        int c = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) {
          // Out of descriptors: the listener stays readable; back off instead of spinning.
          if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
          break;
        }
        spawn(spec.kind, spec.type, sys::UniqueFd(c));
      }
    }
  }
}

void Filter::serve_udp(int fd) {
  std::uint8_t buf[1500];
  for (int k = 0; k < 64; ++k) {
    sockaddr_storage from{};
    socklen_t fl = sizeof(from);
    ssize_t n = ::recvfrom(fd, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from), &fl);
    if (n < 0) return;
    auto reply = answer_dns(*core_, buf, static_cast<std::size_t>(n));
    if (!reply.empty()) {
      ::sendto(fd, reply.data(), reply.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&from), fl);
    }
  }
}

void Filter::read_refusals(int fd) {
  std::uint8_t buf[256];
  for (int k = 0; k < 64; ++k) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n < 0) return;
    auto r = parse_refusal(buf, static_cast<std::size_t>(n));
    if (!r) continue;
    // A client that tries ::1 first (curl, Python's create_connection for "localhost") falls back
    // to 127.0.0.1, where a listener on that port takes the connection and the filter decides and
    // records it: the first attempt is not a refusal to name.
    const bool v4_listened = std::any_of(specs_.begin(), specs_.end(), [&](const ListenSpec& s) {
      return s.type == ListenSpec::Type::Tcp && !s.v6 && s.port == r->port;
    });
    if (r->addr == *IpAddr::parse("::1") && v4_listened) continue;
    record_refusal(*core_, *r);
  }
}

void Filter::spawn(ListenSpec::Role role, ListenSpec::Type, sys::UniqueFd fd) {
  {
    std::lock_guard lock(mu_);
    if (handlers_ >= kMaxHandlers) return;  // fd closes: the client sees a reset
    ++handlers_;
  }
  FilterCore* core = core_.get();
  try {
    std::thread([this, core, role, fd = std::move(fd)]() mutable {
      switch (role) {
        case ListenSpec::Role::Proxy: handle_proxy(*core, std::move(fd)); break;
        case ListenSpec::Role::Transparent: handle_transparent(*core, std::move(fd)); break;
        case ListenSpec::Role::Dns: handle_dns_tcp(*core, std::move(fd)); break;
        case ListenSpec::Role::Watch: break;  // read by the acceptor, never accepted
      }
      std::lock_guard lock(mu_);
      if (--handlers_ == 0) cv_.notify_all();
    }).detach();
  } catch (const std::system_error&) {
    // No thread (resource limits): the connection is dropped, the filter keeps serving.
    std::lock_guard lock(mu_);
    if (--handlers_ == 0) cv_.notify_all();
  }
}

void Filter::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (!serving_) return;
  std::uint64_t one = 1;
  (void)!::write(stop_.get(), &one, sizeof(one));
  if (acceptor_.joinable()) acceptor_.join();
  // A refusal just before the end is queued on the watch already (the kernel taps the reset
  // before the client's connect returns): read it, so the footer has it.
  for (std::size_t i = 0; i < sockets_.size(); ++i) {
    if (specs_[i].type == ListenSpec::Type::Packet && sockets_[i]) read_refusals(sockets_[i].get());
  }
  {
    // Handshakes watch the stop eventfd; a getaddrinfo in progress finishes first.
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return handlers_ == 0; });
  }
  core_->relay.stop();
  sockets_.clear();
}

EgressStats Filter::stats() const {
  const Counters& c = core_->counters;
  EgressStats s;
  s.connections = c.connections;
  s.allowed = c.allowed;
  s.denied = c.denied;
  s.upstream_failures = c.upstream_failures;
  s.dns_queries = c.dns_queries;
  s.bytes_up = c.bytes_up;
  s.bytes_down = c.bytes_down;
  return s;
}

}  // namespace

Result<std::unique_ptr<EgressFilter>> create_egress_filter(const NetworkPolicy& policy,
                                                           const EgressOptions& options) {
  if (policy.mode != NetMode::Filtered) {
    return make_error("the egress filter runs only for a filtered network", "network");
  }
  auto dp = DomainPolicy::create(policy);
  if (!dp) return dp.error();
  auto core = std::make_unique<FilterCore>();
  core->policy = std::move(*dp);
  core->options = options;
  core->log.set_listener(options.on_decision);
  for (const auto& [name, target] : options.resolve) {
    std::string where = "--resolve " + name + ":" + target;
    const char* hint = "write --resolve NAME:ADDRESS[:PORT], e.g. allowed.test:127.0.0.1 or "
                       "allowed.test:[::1]:8443";
    auto canon = canonical_host(name);
    if (!canon || IpAddr::parse(*canon)) return make_error("invalid name \"" + name + "\"", where, hint);
    // "addr", "addr:port", "[v6]:port" or a bare IPv6 address.
    auto hp = IpAddr::parse(target) ? std::optional(std::make_pair(target, std::uint16_t{0}))
                                    : split_host_port(target);
    auto ip = hp ? IpAddr::parse(hp->first) : std::nullopt;
    if (!ip) return make_error("invalid address \"" + target + "\"", where, hint);
    auto& entry = core->resolve[*canon];
    entry.addrs.push_back(*ip);
    if (hp->second != 0) entry.port = hp->second;
  }
  return std::unique_ptr<EgressFilter>(std::make_unique<Filter>(std::move(core)));
}

}  // namespace paddock::net
