// paddock run: confine a command to its project.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/run_command.h"
#include "cli/footer.h"
#include "cli/limit_flags.h"
#include "cli/net_flags.h"
#include "cli/policy_flags.h"
#include "cli/undo_run.h"
#include "cli/git_identity.h"
#include "cli/launcher.h"
#include "policy/units.h"
#include "policy/builtin_profiles.h"
#include "net/decision_log.h"
#include "paddock/jail_backend.h"

namespace paddock::cli {
namespace {

// A profile's [undo] table under the flags: enabled, excludes (the flags add to them).
UndoRunFlags undo_flags_with(UndoRunFlags undo_flags, const UndoSettings& u, bool max_bytes_given) {
  if (u.enabled.value_or(false)) undo_flags.enabled = true;
  if (u.default_excludes) undo_flags.default_excludes = *u.default_excludes;
  if (u.max_checkpoints) undo_flags.max_checkpoints = static_cast<int>(std::min<std::uint64_t>(*u.max_checkpoints, 1000000));
  if (u.max_bytes && !max_bytes_given) undo_flags.max_bytes = *u.max_bytes;
  if (u.store_quota) undo_flags.store_quota = *u.store_quota;
  undo_flags.excludes.insert(undo_flags.excludes.begin(), u.excludes.begin(), u.excludes.end());
  return undo_flags;
}

}  // namespace

Result<RunRequest> run_request_from(const RunFlags& f) {
  RunRequest req;
  req.command = f.command;
  req.backend = f.backend;
  req.exec = f.exec;
  req.pty = !f.no_pty;
  req.net_log = f.net_log;
  req.denials = f.denials;
  req.report = f.limits.report;
  req.undo = f.undo.enabled;
  UndoRunFlags undo_flags = f.undo;
  if (!f.undo_max_bytes.empty()) {
    auto v = parse_size(f.undo_max_bytes);
    if (!v) return make_error(v.error().message, "--undo-max-bytes " + f.undo_max_bytes, v.error().hint);
    undo_flags.max_bytes = *v;
  }
  auto resolve = parse_resolve_flags(f.net.resolve);
  if (!resolve) return std::move(resolve).take_error();
  req.test_resolve = std::move(*resolve);
  // `paddock run -- claude` with Claude Code not installed: its profile's state is not made in
  // HOME, and the run says so (issue 30).
  if (!f.policy.profile_given && !f.command.empty() && !agent_profile_for(f.command[0]).empty()) {
    const char* path_env = std::getenv("PATH");
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) != nullptr &&
        !launcher_resolves(f.command[0], cwd, path_env ? path_env : "/usr/local/bin:/usr/bin:/bin"))
      req.skip_profile_state_because = f.command[0] + " is not on PATH";
  }
  req.configure = [f](PolicyBuilder& builder, const ConfigureContext& c) -> Result<void> {
    PolicyFlags policy_flags = f.policy;
    if (!policy_flags.profile_given && !c.jail_profile.empty()) policy_flags.profile = std::string(c.jail_profile);
    if (!policy_flags.profile_given && !f.command.empty()) {
      // `paddock run -- claude` works on the first try: the agent's built-in profile (issue 13).
      if (auto agent = agent_profile_for(f.command[0]); !agent.empty()) {
        policy_flags.profile = std::string(agent);
        std::fprintf(stderr, "[paddock] profile %s, picked for the command %s (--profile default opts out)\n",
                     policy_flags.profile.c_str(), f.command[0].c_str());
      }
    }
    if (auto r = apply_policy_flags(policy_flags, c.host, builder); !r) return r;
    // The user's git identity, and nothing else of their git config (git_identity.h); what --env
    // says wins. Not into a jail's HOME kept between runs: its own ~/.gitconfig is the user's to set.
    if (!c.home_kept) {
      for (const auto& [name, value] : host_git_identity(c.host.cwd)) {
        bool given = std::any_of(f.policy.env.begin(), f.policy.env.end(), [&](const std::string& e) {
          return e == name || e.rfind(name + "=", 0) == 0;
        });
        if (!given) builder.set_env(name, value);
      }
    }
    if (auto r = apply_limit_flags(f.limits, builder); !r) return r;
    NetFlags net = f.net;
    net.allow_net = f.policy.allow_net;
    net::EgressOptions egress;  // its --resolve map is the request's (test_resolve)
    return apply_net_flags(net, builder, egress);
  };
  // --undo: the writable paths are snapshotted before the sandbox exists and after it is gone
  // (cli/undo_run.h).
  auto undo_run = std::make_shared<std::optional<UndoRecorder>>();
  const bool max_bytes_given = !f.undo_max_bytes.empty();
  const std::vector<std::string> command = f.command;
  req.wrapper.before = [undo_run, undo_flags, max_bytes_given, command](const UndoSettings& profile,
                                                                       const HostContext& ctx, Policy& policy,
                                                                       RunOptions& opts) {
    UndoRunFlags flags = undo_flags_with(undo_flags, profile, max_bytes_given);
    *undo_run = begin_undo(flags, policy, ctx, command);
    open_undo_checkpoints(**undo_run, policy, opts);
  };
  req.wrapper.after = [undo_run]() {
    return *undo_run ? undo_report_lines((*undo_run)->finish()) : std::vector<std::string>{};
  };
  req.say = [](const std::vector<std::string>& lines) { print_prefixed(lines); };
  return req;
}

int print_run_outcome(const RunOutcome& o, const RunFlags& f) {
  if (o.error || !o.result) {
    if (o.error) print_error(*o.error);
    print_prefixed(o.closing);
    return o.exit_code;
  }
  const RunResult& res = *o.result;
  // The sandbox is gone. A reader of our stdout/stderr that left must not kill paddock before
  // the last lines are written (SIGPIPE): writes then fail with EPIPE instead.
  sigset_t pipe_sig;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);
  if (o.report_error) print_error(*o.report_error);
  std::vector<std::string> warnings = o.command_warnings;
  for (const auto& w : res.warnings) warnings.push_back("warning: " + w);
  print_prefixed(warnings);
  // Always, whatever the exit code and --no-diagnostics: the host would run these later.
  print_left_behind(res.left_behind);
  std::string failure = res.failure_message();
  if (!failure.empty()) std::fprintf(stderr, "paddock: %s\n", failure.c_str());
  if (!f.no_diagnostics && !o.footer_quiet) {
    // Whatever the exit code: a run that "succeeded" lost these (issue 30 item 1).
    print_prefixed(discarded_lines(res.discarded, *o.policy));
    std::vector<std::string> extra = limit_footer_lines(res);
    // A program that tries thousands of names must not bury the footer: the first few, then a count.
    constexpr std::size_t kFooterTargets = 10;
    const auto& denied = res.denied_hosts;
    // Recorded printable (for the report and the net log); print_prefixed escapes by itself.
    for (std::size_t i = 0; i < denied.size() && i < kFooterTargets; ++i)
      extra.push_back("network: blocked " + net::from_printable(denied[i]));
    if (denied.size() > kFooterTargets) {
      extra.push_back("network: " + std::to_string(denied.size() - kFooterTargets) +
                      " more blocked targets; --report FILE or --net-log FILE lists them");
    }
    print_prefixed(footer_lines(res, *o.policy, extra, o.home_from));
  }
  print_prefixed(o.closing);
  return o.exit_code;
}

int run_command(const RunFlags& f) {
  auto req = run_request_from(f);
  if (!req) return print_error(req.error()), 2;
  return print_run_outcome(run_request(std::move(*req)), f);
}

int run_with_default_flags(std::vector<std::string> command) {
  RunFlags flags;
  flags.command = std::move(command);
  return run_command(flags);
}

void add_run_flags(CLI::App* cmd, RunFlags& f) {
  RunFlags* flags = &f;
  add_policy_flags(cmd, flags->policy);
  add_limit_flags(cmd, flags->limits);
  add_net_flags(cmd, flags->net);
  cmd->add_flag("--quiet-footer,--no-diagnostics", flags->no_diagnostics,
                "No [paddock] footer when the command fails (a profile: [footer] quiet = true)");
  cmd->add_flag("--exec", flags->exec,
                "Replace paddock with the command (no footer, no pid namespace; processes it detaches are not "
                "stopped when it exits and keep its write access: see docs/process-model.md)");
  cmd->add_flag("--no-pty", flags->no_pty, "Do not give the command its own pseudo-terminal");
  add_backend_option(cmd, flags->backend,
                     "The engine: native (paddock's own) or, with fewer guarantees, bubblewrap or systemd-run "
                     "(docs/jails.md; default: native, or a jail's own)");
  values(cmd->add_option("--net-log", flags->net_log,
                         "Filtered network: append each allow/deny decision to FILE as a JSON line, as it happens"),
         ValueKind::File, "FILE");
  values(cmd->add_option("--denials", flags->denials,
                         "Append what the sandbox is refused to FILE as JSON lines, as it happens (docs/supervisor.md)"),
         ValueKind::File, "FILE");
  cmd->add_flag("--undo", flags->undo.enabled,
                "Snapshot the writable paths before and after the run: paddock undo shows and takes back its changes");
  values(cmd->add_option("--undo-exclude", flags->undo.excludes,
                         "With --undo: leave out NAME (at any depth) or PATH relative to each writable root (repeatable)"),
         ValueKind::Path, "NAME|PATH");
  values(cmd->add_option("--undo-max-bytes", flags->undo_max_bytes,
                         "With --undo: what the checkpoints asked for from inside may add to the store (default 1G; then refused)"),
         ValueKind::Text, "SIZE");
}

CLI::Option* add_backend_option(CLI::App* cmd, std::string& backend, const std::string& help) {
  // The names of paddock/jail_backend.h; `bwrap` is bubblewrap's command.
  return one_of(cmd->add_option("--backend", backend, help), jail::backend_names(), {{"bwrap", "bubblewrap"}});
}

void register_run(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "Run a command confined to the current project");
  add_run_flags(cmd, *flags);
  values(cmd->add_option("command", flags->command, "The command and its arguments (after --)"), ValueKind::Command,
         "COMMAND");
  cmd->callback([flags] {
    if (const auto* after = command_after_dashes()) flags->command.insert(flags->command.end(), after->begin(), after->end());
    if (flags->command.empty()) {
      std::fprintf(stderr, "paddock run: no command given (usage: paddock run [flags] -- COMMAND [ARGS...])\n");
      set_exit_code(2);
      return;
    }
    set_exit_code(run_command(*flags));
  });
}

}  // namespace paddock::cli
