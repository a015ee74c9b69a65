#include "cli/policy_flags.h"

#include "cli/arg_values.h"
#include "paddock/profile.h"

namespace paddock::cli {

namespace {

// "aider, claude, codex, gemini, goose, opencode and pi": the agents `paddock run -- AGENT` knows.
std::string agent_names() {
  std::vector<std::string> agents;
  for (const auto& n : builtin_profile_names())
    if (n != "default") agents.push_back(n);
  std::string out;
  for (std::size_t i = 0; i < agents.size(); ++i)
    out += (i == 0 ? "" : i + 1 == agents.size() ? " and " : ", ") + agents[i];
  return out;
}

}  // namespace

void add_policy_flags(CLI::App* cmd, PolicyFlags& f) {
  // Each occurrence takes exactly one value, so `--allow X -- cmd -c ...` never swallows the command.
  auto one = [](CLI::Option* o) { o->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll); };
  auto rule = [&f](Access a) { return [&f, a](const std::string& v) { f.rules.emplace_back(a, v); }; };
  one(values(cmd->add_option("--allow", f.allow, "Grant read+write on PATH (repeatable)"), ValueKind::Path, "PATH")
          ->each(rule(Access::ReadWrite)));
  one(values(cmd->add_option("--read", f.read, "Grant read-only (and execute) on PATH (repeatable)"), ValueKind::Path,
             "PATH")
          ->each(rule(Access::Read)));
  one(values(cmd->add_option("--write", f.write, "Grant write-only on PATH (repeatable)"), ValueKind::Path, "PATH")
          ->each(rule(Access::Write)));
  cmd->add_flag("--allow-net", f.allow_net, "Share the host network (default: no network)");
  one(values(cmd->add_option("--env", f.env, "Pass NAME from the environment, or set NAME=VALUE (repeatable)"),
             ValueKind::Text, "NAME[=VALUE]"));
  values(cmd->add_option("--profile", f.profile,
                         "Profile NAME or FILE (default: the agent's own for " + agent_names() +
                             "; default otherwise)"),
         ValueKind::Profile, "NAME|FILE")
      ->each([&f](const std::string&) { f.profile_given = true; });
  cmd->add_flag("--require-namespaces", f.require_namespaces,
                "Refuse to run when user namespaces are unavailable instead of falling back");
  cmd->add_flag("--refuse-discarded-writes", f.refuse_discarded_writes,
                "Make writes outside every host-backed path fail (the fresh HOME read-only but for what is bound "
                "into it) instead of discarding them at exit");
}

Result<void> apply_policy_flags(const PolicyFlags& f, const HostContext& ctx, PolicyBuilder& b) {
  auto src = find_profile(f.profile, ctx);
  if (!src) return std::move(src).take_error();
  if (auto r = apply_profile(*src, b, ctx); !r) return r;
  for (const auto& [access, p] : f.rules) {
    const char* flag = access == Access::ReadWrite ? "--allow " : access == Access::Read ? "--read " : "--write ";
    b.allow(p, access, {Origin::Kind::Flag, flag + p});
  }
  if (f.allow_net) {
    // As --allow-net with --allow-domain (net_flags.cc): a profile's allowlist and the whole host
    // network cannot both be meant, and silently sharing everything (the host's loopback services
    // included) is the surprise issue 13 saw with --profile pi.
    const NetworkPolicy& np = b.network_policy();
    if (np.mode == NetMode::Filtered && !np.allow_domains.empty()) {
      std::string name = f.profile.empty() ? "default" : f.profile;
      return make_error("profile " + name + " narrows the network to a list of " +
                            std::to_string(np.allow_domains.size()) +
                            " hosts, and --allow-net shares the whole host network (services on its "
                            "loopback included)",
                        "--allow-net",
                        "to reach one more host, add --allow-domain HOST to the profile's list; for the "
                        "whole network with this profile's other grants, write a profile with extends = \"" +
                            name + "\" and [network] mode = \"on\"");
    }
    b.network(NetMode::Host);
  }
  for (const auto& e : f.env) {
    auto eq = e.find('=');
    if (eq == std::string::npos) b.pass_env(e);
    else b.set_env(e.substr(0, eq), e.substr(eq + 1));
  }
  if (f.require_namespaces) b.require_namespaces(true);
  if (f.refuse_discarded_writes) b.refuse_discarded_writes(true);
  return {};
}

}  // namespace paddock::cli
