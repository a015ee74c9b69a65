// The network-filter flags shared by `run` and `why`: --allow-domain, --deny-domain and the
// test-only --resolve. Apply them after apply_policy_flags (the profile and --allow-net).
//
//   --allow-domain H      (repeatable) filtered network: only these hosts (docs/network.md)
//   --deny-domain H       (repeatable) never these hosts; with --allow-net: everything else
//   --resolve NAME:ADDR[:PORT]   test only: the filter resolves NAME to ADDR (and PORT) instead of
//                          asking the host resolver; names not listed then do not resolve at all
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "net/egress.h"
#include "paddock/policy.h"

namespace paddock::cli {

struct NetFlags {
  std::vector<std::string> allow_domains, deny_domains, resolve;
  bool allow_net = false;  // NOT registered here: the caller copies PolicyFlags::allow_net in
};

void add_net_flags(CLI::App* cmd, NetFlags& f);

// --allow-domain: NetMode::Filtered with these rules (with --allow-net, an error unless
//   --deny-domain is given too).
// --deny-domain with --allow-net: NetMode::Filtered with the rule "*", any --allow-domain rules
//   (to open an address range "*" leaves closed), and the deny rules.
// --deny-domain alone: deny rules added; the mode stays what the profile made it.
Result<void> apply_net_flags(const NetFlags& f, PolicyBuilder& b, net::EgressOptions& opts);
// --resolve NAME:ADDR[:PORT] each, as net::EgressOptions::resolve takes them.
Result<std::vector<std::pair<std::string, std::string>>> parse_resolve_flags(const std::vector<std::string>& given);

}  // namespace paddock::cli
