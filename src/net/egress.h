// The egress filter for NetMode::Filtered (issue 4, docs/network.md). It runs in paddock's
// unsandboxed parent. The sandbox keeps its own network namespace (loopback only); the engine's
// child brings `lo` up, creates the listening sockets described by listeners() *inside* that
// namespace (open_listener(), in the same order) and passes them to the parent, which hands them
// to serve(). A socket keeps the namespace it was created in, so the parent accepts connections
// made inside the sandbox and connects upstream from the host's network. Connections are
// filtered by host name (and port) and relayed; every decision is recorded.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "paddock/network_decision.h"
#include "paddock/policy.h"
#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::net {

// A socket the child creates inside the sandbox's network namespace.
struct ListenSpec {
  enum class Type { Tcp, Udp, Packet };
  enum class Role {
    Proxy,        // HTTP forward proxy, HTTP CONNECT and SOCKS5 on one port
    Dns,          // the sandbox's DNS server (UDP and TCP)
    Transparent,  // catches clients that ignore proxy variables (port 80, 443, ports named in rules)
    Watch,        // Type::Packet: sees connections refused inside the sandbox (net/refusal.h)
  };
  Type type = Type::Tcp;
  Role kind = Role::Proxy;
  std::uint32_t addr_be = 0;  // IPv4 address, network byte order (INADDR_LOOPBACK, INADDR_ANY)
  bool v6 = false;            // instead: IPv6, on [::] only (IPV6_V6ONLY); addr_be unused
  // The run goes on without it (no CAP_NET_RAW for a Watch, no IPv6 in the kernel): the child
  // sends a socket of another family in its place, which serve() leaves out.
  bool optional = false;
  std::uint16_t port = 0;     // host byte order
  std::string role;           // "proxy", "dns", "transparent:443", ... (for logs)
};

// Async-signal-safe (socket, setsockopt, bind, listen only): creates the socket for `spec` in the
// caller's network namespace, close-on-exec. Returns the fd, or -1 with errno set.
int open_listener(const ListenSpec& spec);
// The socket family open_listener() makes for `spec` (AF_INET, AF_INET6, AF_PACKET).
int listener_family(const ListenSpec& spec);

// One line of the decision log: how often this host/port/protocol was allowed or denied.
using DecisionRecord = NetworkDecision;

struct EgressStats {
  std::uint64_t connections = 0;       // TCP connections accepted from the sandbox
  std::uint64_t allowed = 0;           // connections relayed upstream
  std::uint64_t denied = 0;            // connections refused by policy
  std::uint64_t upstream_failures = 0;  // allowed, but resolving or connecting failed
  std::uint64_t dns_queries = 0;
  std::uint64_t bytes_up = 0;           // sandbox -> upstream
  std::uint64_t bytes_down = 0;         // upstream -> sandbox
};

struct EgressOptions {
  // Test-only name map ("allowed.test" -> "127.0.0.1"), used instead of the host resolver. When
  // it is not empty, names missing from it fail to resolve: the real resolver is never asked.
  // The address rules still apply: 127.0.0.1 is refused unless a rule names it.
  std::vector<std::pair<std::string, std::string>> resolve;
  std::uint16_t proxy_port = 3128;  // inside the sandbox, on 127.0.0.1
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds handshake_timeout{30000};  // to read a request head / ClientHello
  // Called (from filter threads, serialised) for each decision as it happens; optional.
  std::function<void(const DecisionRecord&)> on_decision;
};

class EgressFilter {
 public:
  virtual ~EgressFilter() = default;
  virtual std::vector<ListenSpec> listeners() const = 0;
  // Environment for the sandbox: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY (and lowercase).
  virtual std::vector<std::pair<std::string, std::string>> environment() const = 0;
  // Contents of /etc/resolv.conf inside the sandbox.
  virtual std::string resolv_conf() const = 0;
  // Starts serving the sockets (same order as listeners()) on its own threads. An invalid fd in
  // a position leaves that listener out (tests use this).
  virtual Result<void> serve(std::vector<sys::UniqueFd> sockets) = 0;
  // Stops serving, closes every relayed connection, joins threads. Idempotent.
  virtual void stop() = 0;
  // Denied targets seen so far ("host:port", or "host" for DNS), unique, in first-seen order.
  virtual std::vector<std::string> denied_hosts() const = 0;
  // The decision log, aggregated, in first-seen order.
  virtual std::vector<DecisionRecord> decisions() const = 0;
  virtual EgressStats stats() const = 0;
};

// Fails if a rule in the policy does not parse, or the mode is not Filtered.
Result<std::unique_ptr<EgressFilter>> create_egress_filter(const NetworkPolicy& policy,
                                                           const EgressOptions& options);

}  // namespace paddock::net
