// Connecting to the real destination from the host's network: resolve the name (host resolver,
// or the test-only map), check every address against the policy (special ranges need an address
// rule: DNS rebinding, cloud metadata), connect to the first allowed address that answers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "net/address.h"
#include "net/domain_policy.h"
#include "sys/unique_fd.h"

namespace paddock::net {

// The test-only name map: addresses for a name, and optionally a port that replaces whatever
// port the client asked for (so a test can serve "allowed.test:443" from 127.0.0.1:38211).
struct ResolveEntry {
  std::vector<IpAddr> addrs;
  std::uint16_t port = 0;  // 0: keep the requested port
};
using ResolveMap = std::unordered_map<std::string, ResolveEntry>;

struct UpstreamOutcome {
  enum class Status {
    Connected,
    Denied,  // every address the name resolved to is refused by policy: see verdict
    Failed,  // could not resolve or connect: see error (and err)
  };
  Status status = Status::Failed;
  sys::UniqueFd fd;  // Connected: a non-blocking, connected TCP socket
  Verdict verdict;   // Denied: the first refusal
  IpAddr addr;       // Connected: the address used
  std::string error;
  int err = 0;
};

// `host` is canonical and already allowed by name (decide_host); IP literals are used as given.
// With a non-empty `map`, names are looked up there only.
UpstreamOutcome connect_upstream(const DomainPolicy& policy, const std::string& host,
                                 std::uint16_t port, const ResolveMap& map,
                                 std::chrono::milliseconds timeout, int stop_fd);

}  // namespace paddock::net
