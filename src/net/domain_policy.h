// The network decision: may the sandbox reach this host (and port)? Used by the egress filter
// for every connection and DNS query, and by `paddock why --host`. Pure: no syscalls, no DNS.
//
// Order of decision (docs/network.md):
//   1. NetMode::Off denies everything, NetMode::Host allows everything (no filter runs).
//   2. A deny rule that matches wins over any allow rule.
//   3. An allow rule must match the host (and port, if the rule names one).
//   4. After resolution, an address in a special range (loopback, private, link-local, ...) is
//      refused unless an allow rule names that address or a range containing it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/address.h"
#include "net/host_rule.h"
#include "paddock/policy.h"
#include "paddock/result.h"

namespace paddock::net {

struct Verdict {
  enum class Why {
    AllowRule,       // an allow rule matched
    DenyRule,        // a deny rule matched (deny beats allow)
    NoRule,          // no allow rule matched
    NetworkOff,      // NetMode::Off
    NetworkOpen,     // NetMode::Host
    SpecialAddress,  // resolved (or given) address is loopback/private/link-local, not allowed by name
    InvalidHost,     // not a valid host name or address
  };
  bool allowed = false;
  Why why = Why::NoRule;
  std::string rule;        // text of the deciding rule, if any
  std::string reason;      // one sentence for people
  std::string suggestion;  // the narrowest flag that would allow it, if any
};
std::string_view to_string(Verdict::Why w);

class DomainPolicy {
 public:
  // Parses every rule; the first bad rule is the error.
  static Result<DomainPolicy> create(const NetworkPolicy& policy);

  NetMode mode() const { return mode_; }
  // Decides a host (name or IP literal; any case) and port. Port 0 means "some port": the DNS
  // responder answers a name when any allow rule could let a connection to it through.
  Verdict decide_host(std::string_view host, std::uint16_t port) const;
  // Decides an address that `name` resolved to (name already allowed by decide_host), or an IP
  // literal the client asked for (name empty).
  // `host_addresses`: this host's own interface addresses (host_interface_addresses()), refused
  // like a special range unless a rule names them; null: not checked (why, unit tests).
  Verdict decide_address(const IpAddr& addr, std::string_view name, std::uint16_t port,
                         const std::vector<IpAddr>* host_addresses = nullptr) const;
  // Whether a "localhost" allow rule opens this loopback address and port.
  bool localhost_allows(const IpAddr& addr, std::uint16_t port) const;
  // Ports named by allow rules ("github.com:22" -> 22), sorted, unique.
  std::vector<std::uint16_t> named_ports() const;
  const std::vector<HostRule>& allow_rules() const { return allow_; }
  const std::vector<HostRule>& deny_rules() const { return deny_; }

 private:
  NetMode mode_ = NetMode::Off;
  std::vector<HostRule> allow_;
  std::vector<HostRule> deny_;
};

// The flag a person would add to allow host:port ("--allow-domain example.com"; the port is
// named only when it is not 0, 80 or 443). A loopback host always gets its port, ":PORT" when it
// is not known: a loopback rule without one is refused (needs_port).
std::string allow_flag_for(std::string_view host, std::uint16_t port);

// `paddock why --host H [--port P]`.
struct HostDecision {
  std::string host;        // canonical (or as given, if invalid)
  std::uint16_t port = 0;  // 0: any port
  std::string mode;        // "off", "host", "filtered"
  Verdict verdict;
  std::vector<std::string> notes;  // caveats (resolution to private addresses, wildcard apex)
};
Result<HostDecision> explain_host(const NetworkPolicy& policy, std::string_view host,
                                  std::uint16_t port);
// Stable JSON, "version": "paddock.why-host/1" (fields documented in docs/network.md).
// The network a sandbox gets from "share the host network" and two domain lists, the same for
// the CLI (--allow-net, --allow-domain, --deny-domain) and an MCP environment (network,
// allow_domains, deny_domains). The rules must have parsed (HostRule::parse) and the caller must
// have refused the host network with an allow list but no deny list (it would narrow the
// network, which is not what the user asked for).
//   an allow list:               Filtered, only those rules;
//   the host network, deny list:  Filtered, "*" (every name, every public address) plus any allow
//                                rules (the address ranges "*" leaves closed), minus the denied;
//   a deny list alone:           the deny rules are added; the mode stays what it was;
//   no list:                     nothing changes.
void apply_domain_lists(PolicyBuilder& b, bool host_network, const std::vector<std::string>& allow,
                        const std::vector<std::string>& deny);
// Whether apply_domain_lists() turns the egress filter on for these (the first two cases).
bool domain_lists_filter(bool host_network, const std::vector<std::string>& allow,
                         const std::vector<std::string>& deny);

nlohmann::json to_json(const HostDecision& d);
std::string to_text(const HostDecision& d);

}  // namespace paddock::net
