// One network rule as written in --allow-domain / --deny-domain or a profile's [network] lists.
//
//   example.com        exactly this name, any port
//   example.com:22     this name, port 22 only
//   *.example.com      any name below example.com (NOT example.com itself), any port
//   *                  every name and every public address (used for "--allow-net --deny-domain X")
//   203.0.113.7        this address (as a host, or as what an allowed name resolves to)
//   10.0.0.0/8:5432    an address range, port 5432 only
//   [::1]:8080         IPv6 addresses in brackets when a port follows
//   localhost:8765     the loopback addresses 127.0.0.1 and ::1 (and the name "localhost"), port
//                      8765; stored and shown as written
//
// Names are matched case-insensitively, without a trailing dot. Pure: no syscalls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/address.h"
#include "paddock/result.h"

namespace paddock::net {

struct HostRule {
  enum class Kind {
    Name,     // exact host name
    Suffix,   // "*.domain": strict subdomains of `name`
    Any,      // "*"
    Address,   // an IP address or CIDR range
    Loopback,  // "localhost": the name, 127.0.0.1 and ::1
  };
  Kind kind = Kind::Name;
  std::string name;        // lowercase; for Suffix the part after "*."
  Cidr cidr;               // Kind::Address
  std::uint16_t port = 0;  // 0: any port
  std::string text;        // as written

  static Result<HostRule> parse(std::string_view text);

  bool port_matches(std::uint16_t p) const { return port == 0 || p == 0 || port == p; }
  // Host is canonical (see canonical_host). A host that is an IP literal matches Address rules
  // (and Any, for public addresses); a name matches Name, Suffix and Any rules.
  bool host_matches(std::string_view host) const;
  bool address_matches(const IpAddr& a) const;
  // Whether the rule opens only loopback addresses (localhost, 127.0.0.0/8 or a part of it, ::1).
  bool loopback_only() const;
};

// What a person should know about an allow rule that opens only loopback without a port
// ("localhost", "127.0.0.1", "::1"), or "" for any other rule. Such a rule means every port, as a
// name without a port does, but only for clients that use the proxy: programs reach loopback
// directly (NO_PROXY has it; Node's fetch ignores proxies), and inside the sandbox direct
// connections are carried to the host only on ports 80, 443 and those rules name. The footer
// names each refused one with the rule to add (issue 30, item 7).
std::string portless_loopback_note(const HostRule& allow);

// Lowercases, strips one trailing dot and brackets around IPv6 literals, canonicalises IP literals
// ("::0001" -> "::1"), and checks the syntax of names. nullopt if it is not a valid host.
std::optional<std::string> canonical_host(std::string_view host);

// Splits "host:port", "[v6]:port", "host" (port 0). nullopt on a bad port.
std::optional<std::pair<std::string, std::uint16_t>> split_host_port(std::string_view s);

// "host" or "host:port" ("[v6]:port" for IPv6 literals); port 0 is left out.
std::string join_host_port(std::string_view host, std::uint16_t port);

// Whether TEXT is written as a URL ("scheme://..."), which a rule is not.
bool looks_like_url(std::string_view text);

// The rule a URL means: its host, and its port when the URL names one
// ("https://registry.npmjs.org/" -> "registry.npmjs.org", "http://[::1]:8080/x" -> "[::1]:8080").
// The scheme does not narrow the rule (a rule is a host, not a protocol), and the filter cannot
// see paths: *UNENFORCED says what of the URL is not enforced ("the path /x"), or "". A URL with
// a user name or password is refused.
Result<std::string> rule_from_url(std::string_view url, std::string* unenforced = nullptr);

}  // namespace paddock::net
