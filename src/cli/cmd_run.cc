// paddock run: confine a command to its project.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/denials_log.h"
#include "cli/run_command.h"
#include "cli/footer.h"
#include "cli/limit_flags.h"
#include "cli/net_flags.h"
#include "cli/policy_flags.h"
#include "cli/undo_run.h"
#include "policy/units.h"
#include "policy/builtin_profiles.h"
#include "policy/command_setup.h"
#include "engine/report.h"
#include "net/decision_log.h"
#include "jail/git_grants.h"
#include "jail/repository_run.h"
#include "paddock/jail_backend.h"
#include "paddock/sandbox.h"
#include "paddock/why.h"
#include "sys/anchored_dir.h"
#include "sys/display.h"
#include "sys/state_dir.h"
#include "sys/unique_fd.h"

namespace paddock::cli {
namespace {

bool path_is_under_home(const std::string& p, const std::string& home) {
  return p.size() > home.size() + 1 && p.compare(0, home.size(), home) == 0 && p[home.size()] == '/';
}

// "2026-11-23T15:40:01.123Z"
std::string utc_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

// --net-log FILE: the egress filter's decisions as JSON lines, appended as they happen
// (docs/network.md): each new target at once, its repeats at the 10th, 100th, ... time with the
// count so far. The file is opened before the run; nothing in it is overwritten.
Result<std::function<void(const NetworkDecision&)>> open_net_log(const std::string& path,
                                                                 const Policy& policy) {
  if (policy.network.mode != NetMode::Filtered) {
    return make_error("the network is not filtered, so there are no decisions to log", "--net-log " + path,
                      "add --allow-domain HOST (or --deny-domain HOST with --allow-net)");
  }
  struct Log {
    sys::UniqueFd fd;
    net::DecisionTally tally;  // bounded: a flood of new names cannot fill the disk line by line
  };
  auto log = std::make_shared<Log>();
  // Its directory is opened with no symlink followed (it may lie where the sandbox can write).
  auto parts = sys::split_file_path(path);
  if (!parts) return make_error(parts.error().message, "--net-log " + path);
  auto dir = sys::open_dir_no_symlinks(parts->first);
  if (!dir) return make_error(dir.error().describe(), "--net-log " + path, dir.error().hint);
  log->fd.reset(::openat(dir->get(), parts->second.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                         0600));
  if (!log->fd) return make_error(std::string("cannot open: ") + std::strerror(errno), "--net-log " + path);
  // Called one decision at a time (under the filter's log lock).
  return std::function<void(const NetworkDecision&)>([log](const NetworkDecision& d) {
    const NetworkDecision& line = log->tally.add(d);
    // A target's 1st, 10th, 100th, ... decision: every new target at once, repeats log-spaced.
    std::uint64_t c = line.count;
    while (c % 10 == 0) c /= 10;
    if (c != 1) return;
    nlohmann::json j = network_decision_json(line);
    j["time"] = utc_now();
    // Names from the sandbox arrive escaped (net::printable); never throw on bytes anyway.
    std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // One write per line, O_APPEND: lines never interleave, even with another writer.
    (void)!::write(log->fd.get(), text.data(), text.size());
  });
}

// Where the command can write, it can rewrite a log too: say so rather than let a user trust it.
// (A sandbox-private area such as /tmp is another file inside: not this one.)
void warn_if_writable_inside(const char* flag, const std::string& path, const Policy& policy) {
  Decision d = explain_path(policy, path, Op::Write, *real_fs());
  if (d.allowed && d.kind == Decision::Kind::Rule) {
    std::fprintf(stderr, "[paddock] warning: %s %s is writable inside the sandbox: the command can alter it\n", flag,
                 sys::display(path).c_str());
  }
}

}  // namespace

int run_command(const RunFlags& f, const RunExtras* extras) {
  auto ctx = HostContext::from_process();
  if (!ctx) {
    print_error(ctx.error());
    return 125;
  }
  if (extras && !extras->project_dir.empty()) ctx->cwd = extras->project_dir;
  PolicyBuilder builder(*ctx);
  if (extras && !extras->project_dir.empty()) {
    builder.cwd_access(Access::ReadWrite, {Origin::Kind::Cwd, extras->project_origin});
    builder.cwd_is_jail_workspace();  // it lies in paddock's masked state (paddock/state.h)
  }
  PolicyFlags policy_flags = f.policy;
  if (!policy_flags.profile_given && !f.command.empty()) {
    // `paddock run -- claude` works on the first try: the agent's built-in profile (issue 13).
    if (auto agent = agent_profile_for(f.command[0]); !agent.empty()) {
      policy_flags.profile = std::string(agent);
      std::fprintf(stderr, "[paddock] profile %s, picked for the command %s (--profile default opts out)\n",
                   policy_flags.profile.c_str(), f.command[0].c_str());
    }
  }
  if (auto r = apply_policy_flags(policy_flags, *ctx, builder); !r) {
    print_error(r.error());
    return 2;
  }
  // An agent profile's state directories (a profile's [filesystem] create), so that logins and
  // trust decisions made inside persist: created here, at the edge, before the policy resolves.
  for (const auto& d : builder.dirs_to_create()) {
    auto made = sys::make_dir_under(ctx->home, d.path, 0700);
    if (!made) {
      Error e = made.error();
      e.where = d.origin.detail + ": " + e.where;
      print_error(e);
      return 2;
    }
    if (*made) std::fprintf(stderr, "[paddock] created %s (%s)\n", d.path.c_str(), d.origin.detail.c_str());
  }
  for (const auto& f : builder.files_to_create()) {
    auto made = sys::make_file_under(ctx->home, f.path, f.content, 0600);
    if (!made) {
      Error e = made.error();
      e.where = f.origin.detail + ": " + e.where;
      print_error(e);
      return 2;
    }
    if (*made) std::fprintf(stderr, "[paddock] created %s (%s)\n", f.path.c_str(), f.origin.detail.c_str());
  }
  if (extras && extras->add) extras->add(builder);
  if (!extras) {
    // In a linked git worktree the repository's git directory lies outside the project: the
    // grants git needs there, hooks and config read-only (jail/git_grants.h).
    auto wt = jail::find_linked_worktree(ctx->cwd);
    if (!wt) {
      std::fprintf(stderr, "[paddock] warning: %s\n", wt.error().describe().c_str());
    } else if (*wt) {
      jail::add_worktree_grants(builder, **wt, "refs", {Origin::Kind::BuiltIn, "linked git worktree " + (*wt)->top});
      std::fprintf(stderr, "[paddock] linked git worktree: %s writable (refs, its own git directory, objects through "
                   "a private store; hooks and config read-only)\n", (*wt)->common_dir.c_str());
    }
  }
  // paddock's own state exists before the policy is applied, so the sandbox finds it masked rather
  // than absent and creatable (paddock/state.h). Best effort: a run never fails on it.
  if (const std::string& state = ctx->state.user_dir; path_is_under_home(state, ctx->home)) {
    (void)sys::make_dir_under(ctx->home, state, 0700);
  }
  // A profile's [undo] table: enabled, excludes (the flags add to them).
  UndoRunFlags undo_flags = f.undo;
  {
    const UndoSettings& u = builder.undo_settings();
    if (u.enabled.value_or(false)) undo_flags.enabled = true;
    if (u.default_excludes) undo_flags.default_excludes = *u.default_excludes;
    if (u.max_checkpoints) undo_flags.max_checkpoints = static_cast<int>(std::min<std::uint64_t>(*u.max_checkpoints, 1000000));
    if (u.max_bytes && f.undo_max_bytes.empty()) undo_flags.max_bytes = *u.max_bytes;
    if (u.store_quota) undo_flags.store_quota = *u.store_quota;
    if (!f.undo_max_bytes.empty()) {
      auto v = parse_size(f.undo_max_bytes);
      if (!v) {
        print_error(make_error(v.error().message, "--undo-max-bytes " + f.undo_max_bytes, v.error().hint));
        return 2;
      }
      undo_flags.max_bytes = *v;
    }
    undo_flags.excludes.insert(undo_flags.excludes.begin(), u.excludes.begin(), u.excludes.end());
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
  // The agent profile's own arguments ([command]: Codex told that paddock is its sandbox), said in
  // one line; the user's choices that cannot work inside are warned about now and after the run.
  std::vector<std::string> command = f.command;
  std::vector<std::string> command_warnings;
  if (const auto& setup = builder.command_setup()) {
    CommandAdjustment adj = adjust_command(f.command, *setup);
    if (adj.applied) {
      command = adj.argv;
      std::string added;
      for (const auto& a : setup->args) added += " " + a;
      if (!added.empty())
        print_prefixed({setup->name + ": added" + added + " (" + setup->origin.detail + ", [command])"});
      for (const auto& c : adj.conflicts)
        command_warnings.push_back("warning: " + setup->name + " " + c + ": " + setup->conflict_message);
      print_prefixed(command_warnings);
    }
  }
  if (!f.backend.empty() && f.backend != "native") {
    auto jail = jail::make_jail(f.backend);
    if (!jail) {
      print_error(jail.error());
      return 2;
    }
    if (f.exec || !f.net_log.empty() || !f.denials.empty() || !f.limits.report.empty() || f.undo.enabled) {
      print_error(make_error("--exec, --net-log, --denials, --report and --undo need the native backend",
                             "--backend " + f.backend));
      return 2;
    }
    jail::RunOpts jo;
    jo.workspace.path = policy->cwd;
    if (extras) {
      jo.workspace.home_dir = extras->home_dir;
      jo.workspace.mounts = extras->mounts;
    }
    jo.command = command;
    // Said before the run, every time: what this backend does not enforce.
    std::vector<std::string> lines;
    for (const auto& m : (*jail)->missing_guarantees(*policy))
      lines.push_back("backend " + f.backend + ": not enforced: " + m);
    print_prefixed(lines);
    auto rc = (*jail)->run(*policy, jo);
    print_prefixed(command_warnings);
    if (!rc) {
      print_error(rc.error());
      return 125;
    }
    return *rc;
  }
  RunOptions opts;
  opts.argv = command;
  if (extras && !extras->home_dir.empty())
    opts.mounts.push_back({policy->home, extras->home_dir, Access::ReadWrite, 0, {}, {}});
  if (extras) opts.mounts.insert(opts.mounts.end(), extras->mounts.begin(), extras->mounts.end());
  opts.pty = !f.no_pty;
  opts.state_dir = ctx->state.user_dir;
  opts.test_resolve = egress.resolve;
  opts.count_output = !f.limits.report.empty();
  if (!f.net_log.empty()) {
    auto log = open_net_log(f.net_log, *policy);
    if (!log) {
      print_error(log.error());
      return 2;
    }
    opts.on_network_decision = std::move(*log);
    warn_if_writable_inside("--net-log", f.net_log, *policy);
  }
  if (!f.denials.empty()) {
    auto log = open_denials_log(f.denials);
    if (!log) {
      print_error(log.error());
      return 2;
    }
    opts.on_denial = std::move(*log);
    warn_if_writable_inside("--denials", f.denials, *policy);
  }
  // The report's directory is taken now, before the sandbox exists: the command may be able to
  // write there and swap it for a symlink; the report is then written relative to this descriptor.
  sys::UniqueFd report_dir;
  std::string report_name;
  if (!f.limits.report.empty()) {
    auto parts = sys::split_file_path(f.limits.report);
    if (!parts) {
      print_error(make_error(parts.error().message, "--report " + f.limits.report));
      return 2;
    }
    auto dir = sys::open_dir_no_symlinks(parts->first);
    if (!dir) {
      print_error(make_error(dir.error().describe(), "--report " + f.limits.report, dir.error().hint));
      return 2;
    }
    report_dir = std::move(*dir);
    report_name = parts->second;
  }
  if (f.exec && !f.denials.empty()) {
    print_error(make_error("--denials needs the parent that stays behind to record what is refused; --exec removes it",
                           "--exec --denials", "drop one of them"));
    return 2;
  }
  if (f.exec && undo_flags.enabled) {
    print_error(make_error("--undo needs the parent that stays behind to take the last snapshot; --exec removes it",
                           "--exec --undo", "drop one of them"));
    return 2;
  }
  if (f.exec) {
    // No parent stays behind to sweep: a process the command detaches (setsid, double fork) outlives
    // it and keeps every right the sandbox had, writes included (issue 12 item 9).
    for (const PathRule& r : policy->paths) {
      if (!grants(r.access, Access::Write)) continue;
      std::fprintf(stderr,
                   "[paddock] warning: --exec leaves no parent to stop what the command starts: a process it "
                   "detaches keeps running after it and can still write to %s (and every other writable path)\n",
                   r.path.c_str());
      break;
    }
    auto r = exec_in_place(*policy, opts);
    print_error(r.error());  // only returns on failure
    return 125;
  }
  // The repository the project works in keeps its objects: the run writes a private object
  // directory, imported through a verifying step after it, and the refs it moved are checked
  // (src/jail/repository_run.h). Not with --exec: no parent stays to import.
  std::optional<jail::RepositoryRun> repo_run;
  if (!extras) {
    auto writable = [&](const std::string& p) {
      Decision d = explain_path(*policy, p, Op::Write, *real_fs());
      return d.allowed && d.kind == Decision::Kind::Rule;
    };
    const std::string& state = ctx->state.user_dir;
    if (path_is_under_home(state, ctx->home)) (void)sys::make_dir_under(ctx->home, state, 0700);
    auto spec = jail::repository_of(ctx->cwd, ctx->state.git_objects_dir, writable);
    if (!spec) {
      print_error(spec.error());
      return 125;
    }
    if (*spec) {
      auto rr = jail::RepositoryRun::before(**spec);
      if (!rr) {
        print_error(rr.error());
        return 125;
      }
      for (SandboxMount& m : rr->mounts()) opts.mounts.push_back(std::move(m));
      repo_run = std::move(*rr);
    }
  }
  // --undo: the writable paths are snapshotted before the sandbox exists and after it is gone.
  UndoRunPtr undo_run;
  if (undo_flags.enabled) {
    undo_run = undo_before(undo_flags, *policy, *ctx, f.command);
    undo_open_checkpoints(*undo_run, undo_flags, *policy, opts);
  }
  auto res = run(*policy, opts);
  // With namespaces the run wrote only the private object directory (the fallback has no mounts).
  if (repo_run) print_prefixed(repo_run->after(res && res->isolation_gaps.empty()));
  if (!res) {
    print_error(res.error());
    return 125;
  }
  // Always printed: the user needs the session id to take the run back.
  if (undo_run) print_prefixed(undo_after(*undo_run));
  // The sandbox is gone. A reader of our stdout/stderr that left must not kill paddock before
  // the report is written (SIGPIPE): writes then fail with EPIPE instead.
  sigset_t pipe_sig;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);
  if (!f.limits.report.empty()) {
    if (auto w = write_report_at(report_dir.get(), report_name, run_report(*res, *policy, opts.argv)); !w)
      print_error(w.error());
  }
  std::vector<std::string> warnings = command_warnings;
  for (const auto& w : res->warnings) warnings.push_back("warning: " + w);
  print_prefixed(warnings);
  // Always, whatever the exit code and --no-diagnostics: the host would run these later.
  print_left_behind(res->left_behind);
  std::string failure = res->failure_message();
  if (!failure.empty()) std::fprintf(stderr, "paddock: %s\n", failure.c_str());
  if (!f.no_diagnostics && !builder.footer_is_quiet()) {
    std::vector<std::string> extra = limit_footer_lines(*res);
    // A program that tries thousands of names must not bury the footer: the first few, then a count.
    constexpr std::size_t kFooterTargets = 10;
    const auto& denied = res->denied_hosts;
    // Recorded printable (for the report and the net log); print_prefixed escapes by itself.
    for (std::size_t i = 0; i < denied.size() && i < kFooterTargets; ++i)
      extra.push_back("network: blocked " + net::from_printable(denied[i]));
    if (denied.size() > kFooterTargets) {
      extra.push_back("network: " + std::to_string(denied.size() - kFooterTargets) +
                      " more blocked targets; --report FILE or --net-log FILE lists them");
    }
    print_prefixed(footer_lines(*res, *policy, extra, extras ? extras->home_dir : std::string()));
  }
  return res->shell_code();
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
