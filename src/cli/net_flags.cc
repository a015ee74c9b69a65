#include "cli/net_flags.h"

#include "cli/arg_values.h"
#include "cli/footer.h"

#include "net/domain_policy.h"
#include "net/host_rule.h"

namespace paddock::cli {

void add_net_flags(CLI::App* cmd, NetFlags& f) {
  auto one = [](CLI::Option* o) { o->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll); };
  one(values(cmd->add_option("--allow-domain", f.allow_domains,
                             "Filtered network: allow HOST, *.DOMAIN, HOST:PORT, an address/range, or the host "
                             "of a URL (repeatable; see docs/network.md)"),
             ValueKind::Text, "HOST"));
  one(values(cmd->add_option("--deny-domain", f.deny_domains,
                             "Never allow HOST (repeatable); with --allow-net: the whole network minus these"),
             ValueKind::Text, "HOST"));
  one(values(cmd->add_option("--resolve", f.resolve,
                             "Test only: the network filter resolves NAME to ADDR[:PORT] (repeatable)"),
             ValueKind::Text, "NAME:ADDR[:PORT]"));
}

namespace {

Result<void> check_rule(const std::string& flag, const std::string& text) {
  auto r = net::HostRule::parse(text);
  if (r) {
    if (flag == "--allow-domain") {
      if (std::string note = net::portless_loopback_note(*r); !note.empty()) print_prefixed({flag + " " + note});
    }
    return {};
  }
  Error e = r.error();
  e.where = flag + " " + text;
  return e;
}

// A URL given where a host is meant (`--allow-domain https://registry.npmjs.org/`) is the host it
// names, said in one line; what of it the filter cannot enforce (a path) is said too.
Result<std::vector<std::string>> rules_from(const std::string& flag, const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const auto& g : given) {
    if (!net::looks_like_url(g)) {
      if (auto r = check_rule(flag, g); !r) return std::move(r).take_error();
      out.push_back(g);
      continue;
    }
    std::string unenforced;
    auto rule = net::rule_from_url(g, &unenforced);
    if (!rule) {
      Error e = rule.error();
      e.where = flag + " " + g;
      return e;
    }
    if (auto r = check_rule(flag, *rule); !r) {
      Error e = std::move(r).take_error();
      e.where = flag + " " + g;
      return e;
    }
    print_prefixed({flag + " " + g + ": taken as " + *rule +
                    (unenforced.empty() ? "" : " (" + unenforced + " is not enforced: the filter sees hosts)")});
    out.push_back(*rule);
  }
  return out;
}

}  // namespace

Result<void> apply_net_flags(const NetFlags& given, PolicyBuilder& b, net::EgressOptions& opts) {
  NetFlags f = given;
  auto allow = rules_from("--allow-domain", given.allow_domains);
  if (!allow) return std::move(allow).take_error();
  auto deny = rules_from("--deny-domain", given.deny_domains);
  if (!deny) return std::move(deny).take_error();
  f.allow_domains = std::move(*allow);
  f.deny_domains = std::move(*deny);
  if (!f.allow_domains.empty() && f.allow_net && f.deny_domains.empty()) {
    return make_error("--allow-net shares the whole host network, --allow-domain narrows it to a list",
                      "--allow-net", "use one of them; for the whole network minus some hosts use "
                      "--allow-net with --deny-domain");
  }
  net::apply_domain_lists(b, f.allow_net, f.allow_domains, f.deny_domains);
  auto resolve = parse_resolve_flags(f.resolve);
  if (!resolve) return std::move(resolve).take_error();
  opts.resolve.insert(opts.resolve.end(), resolve->begin(), resolve->end());
  return {};
}

Result<std::vector<std::pair<std::string, std::string>>> parse_resolve_flags(const std::vector<std::string>& given) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : given) {
    auto colon = r.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == r.size()) {
      return make_error("expected NAME:ADDR[:PORT]", "--resolve " + r,
                        "e.g. --resolve allowed.test:127.0.0.1 (test only)");
    }
    out.emplace_back(r.substr(0, colon), r.substr(colon + 1));
  }
  return out;
}

}  // namespace paddock::cli
