#include "net/domain_policy.h"

#include <algorithm>

namespace paddock::net {

std::string_view to_string(Verdict::Why w) {
  switch (w) {
    case Verdict::Why::AllowRule: return "allow-rule";
    case Verdict::Why::DenyRule: return "deny-rule";
    case Verdict::Why::NoRule: return "no-rule";
    case Verdict::Why::NetworkOff: return "network-off";
    case Verdict::Why::NetworkOpen: return "network-open";
    case Verdict::Why::SpecialAddress: return "special-address";
    case Verdict::Why::InvalidHost: return "invalid-host";
  }
  return "no-rule";
}

Result<DomainPolicy> DomainPolicy::create(const NetworkPolicy& policy) {
  DomainPolicy p;
  p.mode_ = policy.mode;
  // A bad entry is named where it came from (a profile's file:line:col) when that is known.
  auto located = [](Error e, const std::vector<std::string>& where, std::size_t i) {
    if (i < where.size() && !where[i].empty()) e.where = where[i];
    return e;
  };
  for (std::size_t i = 0; i < policy.allow_domains.size(); ++i) {
    auto r = HostRule::parse(policy.allow_domains[i]);
    if (!r) return located(r.error(), policy.allow_where, i);
    p.allow_.push_back(std::move(*r));
  }
  for (std::size_t i = 0; i < policy.deny_domains.size(); ++i) {
    auto r = HostRule::parse(policy.deny_domains[i]);
    if (!r) return located(r.error(), policy.deny_where, i);
    p.deny_.push_back(std::move(*r));
  }
  return p;
}

std::string allow_flag_for(std::string_view host, std::uint16_t port) {
  // A loopback rule without a port misses direct connections (portless_loopback_note): suggest
  // only what works for every client.
  auto rule = HostRule::parse(host);
  if (rule && rule->loopback_only()) {
    if (port != 0) return "--allow-domain " + join_host_port(host, port);
    const bool v6 = host.find(':') != std::string_view::npos;
    return "--allow-domain " + (v6 ? "[" + std::string(host) + "]" : std::string(host)) + ":PORT";
  }
  bool usual = port == 0 || port == 80 || port == 443;
  return "--allow-domain " + join_host_port(host, usual ? 0 : port);
}

namespace {

Verdict make(bool allowed, Verdict::Why why, std::string rule, std::string reason,
             std::string suggestion = {}) {
  Verdict v;
  v.allowed = allowed;
  v.why = why;
  v.rule = std::move(rule);
  v.reason = std::move(reason);
  v.suggestion = std::move(suggestion);
  return v;
}

// A deny rule with a port blocks only that port; when the port is unknown (0, a DNS query) only
// port-less deny rules apply, so "evil.example:22" does not stop the name from resolving.
bool deny_applies(const HostRule& r, std::uint16_t port) {
  return port == 0 ? r.port == 0 : r.port_matches(port);
}

}  // namespace

Verdict DomainPolicy::decide_host(std::string_view raw_host, std::uint16_t port) const {
  std::string target = join_host_port(raw_host, port);
  if (mode_ == NetMode::Off) {
    return make(false, Verdict::Why::NetworkOff, {}, "the network is off in this sandbox",
                allow_flag_for(raw_host, port));
  }
  if (mode_ == NetMode::Host) {
    return make(true, Verdict::Why::NetworkOpen, {}, "the sandbox shares the host network (--allow-net)");
  }
  auto host = canonical_host(raw_host);
  if (!host) {
    return make(false, Verdict::Why::InvalidHost, {}, "\"" + std::string(raw_host) + "\" is not a valid host name");
  }
  if (auto ip = IpAddr::parse(*host)) return decide_address(*ip, {}, port);
  target = join_host_port(*host, port);
  for (const auto& r : deny_) {
    if (r.host_matches(*host) && deny_applies(r, port)) {
      return make(false, Verdict::Why::DenyRule, r.text, target + " matches the deny rule " + r.text);
    }
  }
  for (const auto& r : allow_) {
    if (r.host_matches(*host) && r.port_matches(port)) {
      return make(true, Verdict::Why::AllowRule, r.text, target + " matches the allow rule " + r.text);
    }
  }
  return make(false, Verdict::Why::NoRule, {}, "no allow rule matches " + target,
              allow_flag_for(*host, port));
}

Verdict DomainPolicy::decide_address(const IpAddr& addr, std::string_view name,
                                     std::uint16_t port, const std::vector<IpAddr>* host_addresses) const {
  std::string a = addr.to_string();
  std::string target = join_host_port(a, port);
  std::string via = name.empty() ? std::string() : std::string(name) + " resolves to ";
  if (mode_ == NetMode::Off) {
    return make(false, Verdict::Why::NetworkOff, {}, "the network is off in this sandbox",
                allow_flag_for(name.empty() ? a : name, port));
  }
  if (mode_ == NetMode::Host) {
    return make(true, Verdict::Why::NetworkOpen, {}, "the sandbox shares the host network (--allow-net)");
  }
  for (const auto& r : deny_) {
    if (r.address_matches(addr) && deny_applies(r, port)) {
      return make(false, Verdict::Why::DenyRule, r.text, via + target + " matches the deny rule " + r.text);
    }
  }
  for (const auto& r : allow_) {
    if (r.address_matches(addr) && r.port_matches(port)) {
      return make(true, Verdict::Why::AllowRule, r.text, via + target + " matches the allow rule " + r.text);
    }
  }
  // Only an explicit address rule can open a special range, never a name: an allowed name that
  // resolves to 127.0.0.1 or 169.254.169.254 is DNS rebinding or a misconfiguration.
  std::string exact_flag = HostRule::parse(a)->loopback_only()
                               ? allow_flag_for(a, port)
                               : "--allow-domain " + join_host_port(a, port);
  if (auto why = special_range(addr)) {
    return make(false, Verdict::Why::SpecialAddress, {},
                via + a + ", a " + *why + " address; only a rule naming the address allows it",
                exact_flag);
  }
  // The host's own addresses: what listens on 0.0.0.0 there is the user's machine, as loopback is.
  if (host_addresses != nullptr) {
    for (const IpAddr& h : *host_addresses) {
      if (h == addr || (addr.embedded_v4() && *addr.embedded_v4() == h)) {
        return make(false, Verdict::Why::SpecialAddress, {},
                    via + a + ", an address of this host; only a rule naming the address allows it", exact_flag);
      }
    }
  }
  if (!name.empty()) {
    return make(true, Verdict::Why::AllowRule, {}, via + a + ", a public address");
  }
  for (const auto& r : allow_) {
    if (r.kind == HostRule::Kind::Any && r.port_matches(port)) {
      return make(true, Verdict::Why::AllowRule, r.text, target + " matches the allow rule " + r.text);
    }
  }
  return make(false, Verdict::Why::NoRule, {}, "no allow rule matches the address " + target,
              exact_flag);
}

bool DomainPolicy::localhost_allows(const IpAddr& addr, std::uint16_t port) const {
  return std::any_of(allow_.begin(), allow_.end(), [&](const HostRule& r) {
    return r.kind == HostRule::Kind::Loopback && r.address_matches(addr) && r.port_matches(port);
  });
}

std::vector<std::uint16_t> DomainPolicy::named_ports() const {
  std::vector<std::uint16_t> ports;
  for (const auto& r : allow_) {
    if (r.port != 0) ports.push_back(r.port);
  }
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

Result<HostDecision> explain_host(const NetworkPolicy& policy, std::string_view host,
                                  std::uint16_t port) {
  auto dp = DomainPolicy::create(policy);
  if (!dp) return dp.error();
  HostDecision d;
  auto canon = canonical_host(host);
  d.host = canon ? *canon : std::string(host);
  d.port = port;
  d.mode = std::string(to_string(policy.mode));
  d.verdict = dp->decide_host(host, port);
  // "localhost" is the loopback addresses (HostRule::Kind::Loopback): an address, not a name.
  const bool address = canon && (IpAddr::parse(*canon) || *canon == "localhost");
  if (policy.mode == NetMode::Filtered && canon && !address) {
    if (d.verdict.allowed) {
      d.notes.push_back("if " + *canon + " resolves to a loopback, private or link-local address, "
                        "the connection is still refused unless a rule names that address");
    }
    for (const auto& r : dp->allow_rules()) {
      if (r.kind == HostRule::Kind::Suffix && r.name == *canon) {
        d.notes.push_back("the rule " + r.text + " matches names below " + r.name +
                          ", not " + r.name + " itself");
      }
    }
    if (port == 0) {
      d.notes.push_back("no port given: the answer is for any port some rule allows");
    }
  }
  if (policy.mode == NetMode::Filtered && address && d.verdict.allowed) {
    // A client that connects to the address itself (NO_PROXY, Node's fetch) meets the sandbox's
    // transparent listeners, which exist only on 80, 443 and the ports rules name.
    auto named = dp->named_ports();
    bool listened = port == 80 || port == 443 || std::find(named.begin(), named.end(), port) != named.end();
    if (!listened) {
      std::string with_port = port != 0 ? join_host_port(*canon, port)
                                        : (canon->find(':') != std::string::npos ? "[" + *canon + "]" : *canon) + ":PORT";
      d.notes.push_back("clients that connect to " + *canon + " directly instead of through the proxy "
                        "(NO_PROXY entries, Node's fetch) need the port in the rule: --allow-domain " + with_port);
    }
  }
  return d;
}

bool domain_lists_filter(bool host_network, const std::vector<std::string>& allow,
                         const std::vector<std::string>& deny) {
  return (host_network && !deny.empty()) || !allow.empty();
}

void apply_domain_lists(PolicyBuilder& b, bool host_network, const std::vector<std::string>& allow,
                        const std::vector<std::string>& deny) {
  if (domain_lists_filter(host_network, allow, deny)) {
    b.network(NetMode::Filtered);
    if (host_network && !deny.empty()) b.allow_domain("*");
    for (const auto& a : allow) b.allow_domain(a);
  }
  for (const auto& d : deny) b.deny_domain(d);
}

nlohmann::json to_json(const HostDecision& d) {
  nlohmann::json j;
  j["version"] = "paddock.why-host/1";
  j["host"] = d.host;
  j["port"] = d.port == 0 ? nlohmann::json(nullptr) : nlohmann::json(d.port);
  j["mode"] = d.mode;
  j["allowed"] = d.verdict.allowed;
  j["decided_by"] = std::string(to_string(d.verdict.why));
  j["rule"] = d.verdict.rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.verdict.rule);
  j["reason"] = d.verdict.reason;
  j["suggestion"] =
      d.verdict.suggestion.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.verdict.suggestion);
  j["notes"] = d.notes;
  return j;
}

std::string to_text(const HostDecision& d) {
  std::string out = join_host_port(d.host, d.port) + ": " +
                    (d.verdict.allowed ? "allowed" : "denied") + "\n";
  out += "  network: " + d.mode + "\n";
  if (!d.verdict.rule.empty()) out += "  rule: " + d.verdict.rule + "\n";
  out += "  why: " + d.verdict.reason + "\n";
  if (!d.verdict.suggestion.empty()) out += "  to allow: " + d.verdict.suggestion + "\n";
  for (const auto& n : d.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace paddock::net
