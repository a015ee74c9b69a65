// paddock why: which rule allows or denies an access, and why.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/net_flags.h"
#include "cli/policy_flags.h"
#include "cli/self_denials.h"
#include "net/domain_policy.h"
#include "net/host_rule.h"
#include "paddock/sandbox.h"
#include "paddock/why.h"

namespace paddock::cli {
namespace {

struct WhyFlags {
  PolicyFlags policy;
  NetFlags net;
  std::string path;
  std::string host;
  int port = 0;
  std::string op = "read";
  bool self = false;
  bool json = false;
  bool denials = false;
};

int fail(const Error& e) {
  print_command_error("paddock why", e);
  return 2;
}

Result<Policy> self_policy() {
  const char* file = std::getenv("PADDOCK_POLICY");
  if (!file || !*file)
    return make_error("not inside a paddock sandbox (PADDOCK_POLICY is not set)", "--self");
  std::ifstream in(file);
  if (!in) return errno_error("cannot read the policy file", errno, file);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return make_error("the policy file is not valid JSON", file);
  return policy_from_json(j);
}

int do_why(const WhyFlags& f) {
  if (f.denials) {
    if (!f.self) return fail(make_error("--denials reads this session's record from inside: add --self", "--denials"));
    return print_self_denials(f.json);
  }
  auto op = parse_op(f.op);
  if (!op) return fail(op.error());
  Result<Policy> policy = make_error("unset");
  if (f.self) {
    policy = self_policy();
  } else {
    auto ctx = HostContext::from_process();
    if (!ctx) return fail(ctx.error());
    PolicyBuilder b(*ctx);
    if (auto r = apply_policy_flags(f.policy, *ctx, b); !r) return fail(r.error());
    NetFlags net = f.net;
    net.allow_net = f.policy.allow_net;
    net::EgressOptions unused;
    if (auto r = apply_net_flags(net, b, unused); !r) return fail(r.error());
    policy = b.build();
  }
  if (!policy) return fail(policy.error());
  if (!f.host.empty()) {
    if (f.port < 0 || f.port > 65535) return fail(make_error("--port must be 0-65535", "--port"));
    // The footer and the report write HOST:PORT (and --allow-domain takes it, or a URL): accept them here.
    std::string host = f.host;
    if (net::looks_like_url(host)) {
      auto rule = net::rule_from_url(host);
      if (!rule) return fail(rule.error());
      host = *rule;
    }
    auto hp = net::split_host_port(host);
    if (!hp) {
      return fail(make_error("invalid port in \"" + f.host + "\"", "--host",
                             "write --host HOST[:PORT] ([v6]:PORT for an IPv6 address) or --port PORT"));
    }
    auto port = static_cast<std::uint16_t>(f.port);
    if (hp->second != 0 && port != 0 && hp->second != port) {
      return fail(make_error("--host " + f.host + " names port " + std::to_string(hp->second) +
                                 " but --port says " + std::to_string(port),
                             "--host", "give the port once"));
    }
    if (hp->second != 0) port = hp->second;
    auto d = net::explain_host(policy->network, hp->first, port);
    if (!d) return fail(d.error());
    if (f.json) std::printf("%s\n", net::to_json(*d).dump(2).c_str());
    else std::printf("%s", net::to_text(*d).c_str());
    return d->verdict.allowed ? 0 : 1;
  }
  if (f.path.empty()) return fail(make_error("give --path PATH or --host HOST"));
  Decision d = explain_path(*policy, f.path, *op, *real_fs());
  if (f.json) std::printf("%s\n", to_json(d).dump(2).c_str());
  else std::printf("%s", to_text(d).c_str());
  return d.allowed ? 0 : 1;
}

}  // namespace

void register_why(CLI::App& app) {
  auto flags = std::make_shared<WhyFlags>();
  auto* cmd = app.add_subcommand("why", "Explain which rule allows or denies an access");
  values(cmd->add_option("--path", flags->path, "The path to ask about"), ValueKind::Path, "PATH");
  values(cmd->add_option("--host", flags->host, "A host (HOST or HOST:PORT) to ask about (network policy)"),
         ValueKind::Text, "HOST[:PORT]");
  values(cmd->add_option("--port", flags->port, "With --host: the port (default: any)"), ValueKind::Text, "PORT");
  one_of(cmd->add_option("--op", flags->op, "The access to ask about"), {"read", "write", "exec"});
  cmd->add_flag("--self", flags->self, "Answer from inside a sandbox, from the policy in PADDOCK_POLICY");
  cmd->add_flag("--json", flags->json, "Stable JSON output (docs/why.md)");
  cmd->add_flag("--denials", flags->denials,
                "With --self: what this session was refused so far, from paddock's read-only record (docs/supervisor.md)");
  add_policy_flags(cmd, flags->policy);
  add_net_flags(cmd, flags->net);
  cmd->footer("Exit status: 0 allowed, 1 denied, 2 usage or policy error.");
  cmd->callback([flags] { set_exit_code(do_why(*flags)); });
}

}  // namespace paddock::cli
