// What happens on one connection from the sandbox, from accept to hand-off to the relay:
// the proxy port (HTTP forward, CONNECT, SOCKS5 by first byte), the transparent listeners
// (name from the synthetic address, Host header or TLS SNI), and DNS (UDP datagrams, TCP).
// Each handler runs on its own short-lived thread; the relay thread takes over the bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "net/decision_log.h"
#include "net/domain_policy.h"
#include "net/egress.h"
#include "net/name_map.h"
#include "net/refusal.h"
#include "net/relay.h"
#include "net/upstream.h"
#include "sys/unique_fd.h"

namespace paddock::net {

struct Counters {
  std::atomic<std::uint64_t> connections{0}, allowed{0}, denied{0}, upstream_failures{0},
      dns_queries{0}, bytes_up{0}, bytes_down{0};
};

// Shared by every handler; owned by the filter and outliving all handler threads.
struct FilterCore {
  DomainPolicy policy;
  ResolveMap resolve;
  EgressOptions options;
  NameMap names;
  DecisionLog log;
  Relay relay;
  Counters counters;
  int stop_fd = -1;  // eventfd, readable once stop() begins
};

void handle_proxy(FilterCore& core, sys::UniqueFd client);
void handle_transparent(FilterCore& core, sys::UniqueFd client);
void handle_dns_tcp(FilterCore& core, sys::UniqueFd client);
// A connection the sandbox's own kernel refused (net/refusal.h): recorded as denied, named by
// the name behind a synthetic address when it is one, with the rule that would carry it.
void record_refusal(FilterCore& core, const RefusedConnection& refused);
// The reply to one DNS message (empty: send nothing).
std::vector<std::uint8_t> answer_dns(FilterCore& core, const std::uint8_t* msg, std::size_t len);

}  // namespace paddock::net
