// Connections refused inside the sandbox's own network namespace (issue 30, item 7). A direct
// connection (NO_PROXY, Node's fetch, a socket to an address) to a port the egress filter does
// not listen on never reaches the filter: the sandbox's kernel answers the SYN with a reset and
// the client sees ECONNREFUSED. To record and name those too, the engine's child makes one more
// socket inside the namespace, like the listeners: a packet socket on `lo` whose BPF filter
// passes only such resets (RST+ACK with sequence 0: the answer to a SYN nothing accepted), and
// the filter's parent reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "net/address.h"

namespace paddock::net {

struct RefusedConnection {
  IpAddr addr;             // where the client tried to connect
  std::uint16_t port = 0;  // host byte order
};

// Async-signal-safe: the packet socket on the loopback interface of the caller's network
// namespace (ifindex 1 in every namespace), filtered as above, close-on-exec. Needs CAP_NET_RAW
// in the namespace. Returns the fd, or -1 with errno set.
int open_refusal_watch();

// The refused target one packet from that socket names (IPv4 or IPv6, starting at the IP
// header), or nullopt for anything else. Pure: the bytes come from the sandbox's namespace.
std::optional<RefusedConnection> parse_refusal(const std::uint8_t* packet, std::size_t len);

}  // namespace paddock::net
