// The egress filter for NetMode::Filtered (issue 4). It runs in paddock's unsandboxed parent.
// The sandbox keeps its own network namespace (loopback only); the engine's child creates the
// listening sockets described by listeners() *inside* that namespace and passes them to the
// parent, which hands them to serve(). Connections the sandbox makes to those sockets are
// filtered by host name (and port) and relayed to the real destination from the host's network.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::net {

// A socket the child creates inside the sandbox's network namespace.
struct ListenSpec {
  enum class Type { Tcp, Udp };
  Type type = Type::Tcp;
  std::uint32_t addr_be = 0;  // IPv4 address, network byte order (INADDR_LOOPBACK, INADDR_ANY)
  std::uint16_t port = 0;     // host byte order
  std::string role;           // "proxy", "dns", "transparent:443", ... (for logs)
};

struct EgressOptions {
  // Test-only name map ("allowed.test" -> "127.0.0.1"), used instead of the host resolver.
  std::vector<std::pair<std::string, std::string>> resolve;
};

class EgressFilter {
 public:
  virtual ~EgressFilter() = default;
  virtual std::vector<ListenSpec> listeners() const = 0;
  // Environment for the sandbox: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY (and lowercase).
  virtual std::vector<std::pair<std::string, std::string>> environment() const = 0;
  // Contents of /etc/resolv.conf inside the sandbox.
  virtual std::string resolv_conf() const = 0;
  // Starts serving the sockets (same order as listeners()) on its own thread(s).
  virtual Result<void> serve(std::vector<sys::UniqueFd> sockets) = 0;
  // Stops serving and joins threads.
  virtual void stop() = 0;
  // Denied hosts seen so far ("host:port"), for the footer and report.
  virtual std::vector<std::string> denied_hosts() const = 0;
};

Result<std::unique_ptr<EgressFilter>> create_egress_filter(const NetworkPolicy& policy,
                                                           const EgressOptions& options);

}  // namespace paddock::net
