// IP addresses for the egress filter: parsing, printing, CIDR ranges, and the special ranges
// (loopback, private, link-local, ...) that an allowed name must not resolve to unless an allow
// rule names the address explicitly (DNS rebinding, cloud metadata). Pure: no syscalls.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>
#include <string>
#include <string_view>

namespace paddock::net {

struct IpAddr {
  int family = AF_INET;                 // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> bytes{};  // network order; IPv4 uses the first 4

  static std::optional<IpAddr> parse(std::string_view text);  // "1.2.3.4", "::1", "[::1]"
  static IpAddr from_sockaddr(const sockaddr* sa);
  static IpAddr v4(std::uint32_t host_order);
  std::string to_string() const;  // canonical text (inet_ntop)
  std::size_t size() const { return family == AF_INET ? 4 : 16; }
  // The embedded IPv4 address of ::ffff:a.b.c.d (v4-mapped) and 64:ff9b::a.b.c.d (NAT64).
  std::optional<IpAddr> embedded_v4() const;
  bool operator==(const IpAddr&) const = default;
};

struct Cidr {
  IpAddr base;
  int prefix = 32;
  static std::optional<Cidr> parse(std::string_view text);  // "10.0.0.0/8", "1.2.3.4", "fc00::/7"
  bool contains(const IpAddr& a) const;
  std::string to_string() const;
};

// Why an address is special ("loopback", "private (10.0.0.0/8)", "link-local (cloud metadata)"),
// or nullopt for an ordinary public address. The list is in address.cc and docs/network.md.
std::optional<std::string> special_range(const IpAddr& a);

// The addresses on this host's own interfaces (getifaddrs), read fresh on each call: a service
// bound to 0.0.0.0 answers on every one of them, public ones included (issue 12, item 7).
std::vector<IpAddr> host_interface_addresses();

// Builds a sockaddr for an address and a port (host order). Returns its length.
socklen_t to_sockaddr(const IpAddr& a, std::uint16_t port, sockaddr_storage* out);

}  // namespace paddock::net
