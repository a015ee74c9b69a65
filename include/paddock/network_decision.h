// One line of the egress filter's decision log (NetMode::Filtered): a target the sandbox tried,
// aggregated by host, port, protocol and verdict. In RunResult::network and the run report.
#pragma once

#include <cstdint>
#include <string>

namespace paddock {

struct NetworkDecision {
  std::string host;        // as the sandbox named it (canonical), or an address
  std::uint16_t port = 0;  // 0 for DNS queries
  std::string protocol;    // "http", "connect", "socks5", "dns", "tls", "http-transparent", "tcp"
  bool allowed = false;
  std::string reason;      // the first reason seen for this line
  std::string allow_with;  // the flag that would allow it ("--allow-domain example.com"), if any
  std::uint64_t count = 0;
};

}  // namespace paddock
