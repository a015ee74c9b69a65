#include "cli/net_flags.h"

#include "net/domain_policy.h"
#include "net/host_rule.h"

namespace paddock::cli {

void add_net_flags(CLI::App* cmd, NetFlags& f) {
  auto one = [](CLI::Option* o) { o->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll); };
  one(cmd->add_option("--allow-domain", f.allow_domains,
                      "Filtered network: allow HOST, *.DOMAIN, HOST:PORT or an address/range "
                      "(repeatable; see docs/network.md)")
          ->type_name("HOST"));
  one(cmd->add_option("--deny-domain", f.deny_domains,
                      "Never allow HOST (repeatable); with --allow-net: the whole network minus these")
          ->type_name("HOST"));
  one(cmd->add_option("--resolve", f.resolve,
                      "Test only: the network filter resolves NAME to ADDR[:PORT] (repeatable)")
          ->type_name("NAME:ADDR[:PORT]"));
}

namespace {

Result<void> check_rule(const std::string& flag, const std::string& text) {
  auto r = net::HostRule::parse(text);
  if (r) return {};
  Error e = r.error();
  e.where = flag + " " + text;
  return e;
}

}  // namespace

Result<void> apply_net_flags(const NetFlags& f, PolicyBuilder& b, net::EgressOptions& opts) {
  for (const auto& a : f.allow_domains) {
    if (auto r = check_rule("--allow-domain", a); !r) return r;
  }
  for (const auto& d : f.deny_domains) {
    if (auto r = check_rule("--deny-domain", d); !r) return r;
  }
  if (!f.allow_domains.empty() && f.allow_net && f.deny_domains.empty()) {
    return make_error("--allow-net shares the whole host network, --allow-domain narrows it to a list",
                      "--allow-net", "use one of them; for the whole network minus some hosts use "
                      "--allow-net with --deny-domain");
  }
  net::apply_domain_lists(b, f.allow_net, f.allow_domains, f.deny_domains);
  for (const auto& r : f.resolve) {
    auto colon = r.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == r.size()) {
      return make_error("expected NAME:ADDR[:PORT]", "--resolve " + r,
                        "e.g. --resolve allowed.test:127.0.0.1 (test only)");
    }
    opts.resolve.emplace_back(r.substr(0, colon), r.substr(colon + 1));
  }
  return {};
}

}  // namespace paddock::cli
