// paddock run: confine a command to its project.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/footer.h"
#include "cli/limit_flags.h"
#include "cli/net_flags.h"
#include "cli/policy_flags.h"
#include "engine/report.h"
#include "paddock/sandbox.h"

namespace paddock::cli {
namespace {

struct RunFlags {
  PolicyFlags policy;
  LimitFlags limits;
  NetFlags net;
  std::vector<std::string> command;
  bool no_diagnostics = false;
  bool exec = false;
  bool no_pty = false;
};

void print_error(const Error& e) {
  std::fprintf(stderr, "paddock: %s\n", e.describe().c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "paddock: hint: %s\n", e.hint.c_str());
}

int do_run(const RunFlags& f) {
  auto ctx = HostContext::from_process();
  if (!ctx) {
    print_error(ctx.error());
    return 125;
  }
  PolicyBuilder builder(*ctx);
  if (auto r = apply_policy_flags(f.policy, *ctx, builder); !r) {
    print_error(r.error());
    return 2;
  }
  if (auto r = apply_limit_flags(f.limits, builder); !r) {
    print_error(r.error());
    return 2;
  }
  NetFlags net = f.net;
  net.allow_net = f.policy.allow_net;
  net::EgressOptions egress;
  if (auto r = apply_net_flags(net, builder, egress); !r) {
    print_error(r.error());
    return 2;
  }
  auto policy = builder.build();
  if (!policy) {
    print_error(policy.error());
    return 2;
  }
  RunOptions opts;
  opts.argv = f.command;
  opts.pty = !f.no_pty;
  opts.test_resolve = egress.resolve;
  opts.count_output = !f.limits.report.empty();
  if (f.exec) {
    auto r = exec_in_place(*policy, opts);
    print_error(r.error());  // only returns on failure
    return 125;
  }
  auto res = run(*policy, opts);
  if (!res) {
    print_error(res.error());
    return 125;
  }
  for (const auto& w : res->warnings) std::fprintf(stderr, "[paddock] warning: %s\n", w.c_str());
  std::string failure = res->failure_message();
  if (!failure.empty()) std::fprintf(stderr, "paddock: %s\n", failure.c_str());
  if (!f.limits.report.empty()) {
    if (auto w = write_report_file(f.limits.report, run_report(*res, *policy, f.command)); !w)
      print_error(w.error());
  }
  if (!f.no_diagnostics) {
    std::vector<std::string> extra = limit_footer_lines(*res);
    for (const auto& h : res->denied_hosts) extra.push_back("network: blocked " + h);
    print_prefixed(footer_lines(*res, *policy, extra));
  }
  return res->shell_code();
}

}  // namespace

int run_with_default_flags(std::vector<std::string> command) {
  RunFlags flags;
  flags.command = std::move(command);
  return do_run(flags);
}

void register_run(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "Run a command confined to the current project");
  add_policy_flags(cmd, flags->policy);
  add_limit_flags(cmd, flags->limits);
  add_net_flags(cmd, flags->net);
  cmd->add_flag("--no-diagnostics", flags->no_diagnostics, "No [paddock] footer when the command fails");
  cmd->add_flag("--exec", flags->exec,
                "Replace paddock with the command (no footer, no pid namespace: see docs/process-model.md)");
  cmd->add_flag("--no-pty", flags->no_pty, "Do not give the command its own pseudo-terminal");
  cmd->add_option("command", flags->command, "The command and its arguments (after --)");
  cmd->callback([flags] {
    if (const auto* after = command_after_dashes()) flags->command.insert(flags->command.end(), after->begin(), after->end());
    if (flags->command.empty()) {
      std::fprintf(stderr, "paddock run: no command given (usage: paddock run [flags] -- COMMAND [ARGS...])\n");
      set_exit_code(2);
      return;
    }
    set_exit_code(do_run(*flags));
  });
}

}  // namespace paddock::cli
