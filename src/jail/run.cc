// A command line's run (paddock/run.h): the policy built from the caller's configure step and
// the project, then the command run by the backend asked for, with the repository guard, the
// decision log, the wrapper (undo) and the report around it. Nothing printed: lines go to `say`.
#include "paddock/run.h"

#include <algorithm>
#include <utility>

#include "engine/denials_log.h"
#include "engine/net_log.h"
#include "engine/report.h"
#include "jail/enclosing_repo.h"
#include "jail/git_grants.h"
#include "jail/repository_run.h"
#include "paddock/jail_backend.h"
#include "paddock/why.h"
#include "policy/command_setup.h"
#include "sys/anchored_dir.h"
#include "sys/state_dir.h"
#include "sys/unique_fd.h"

namespace paddock {
namespace {

bool path_is_under_home(const std::string& p, const std::string& home) {
  return p.size() > home.size() + 1 && p.compare(0, home.size(), home) == 0 && p[home.size()] == '/';
}

// Where the command can write, by a rule (a sandbox-private area such as /tmp is another file inside).
bool writable_inside(const Policy& policy, const std::string& p) {
  Decision d = explain_path(policy, p, Op::Write, *real_fs());
  return d.allowed && d.kind == Decision::Kind::Rule;
}

class Run {
 public:
  explicit Run(RunRequest req) : req_(std::move(req)) {}
  RunOutcome go();

 private:
  RunOutcome& fail(Error e, int code) {
    out_.error = std::move(e);
    out_.exit_code = code;
    return out_;
  }
  void say(const std::vector<std::string>& lines) const {
    if (req_.say && !lines.empty()) req_.say(lines);
  }
  // A profile's state directories and files ([filesystem] create), so that logins and trust
  // decisions made inside persist: created before the policy resolves.
  Result<void> create_profile_state(const PolicyBuilder& b, const std::string& home) const;
  RunOutcome& run_with_backend(const std::string& backend);
  RunOutcome& run_native(bool undo);

  RunRequest req_;
  RunOutcome out_;
  std::optional<HostContext> ctx_;
  Policy* policy_ = nullptr;
  UndoSettings undo_settings_;  // the profile's [undo] table
};

Result<void> Run::create_profile_state(const PolicyBuilder& b, const std::string& home) const {
  for (const auto& d : b.dirs_to_create()) {
    auto made = sys::make_dir_under(home, d.path, 0700);
    if (!made) {
      Error e = made.error();
      e.where = d.origin.detail + ": " + e.where;
      return e;
    }
    if (*made) say({"created " + d.path + " (" + d.origin.detail + ")"});
  }
  for (const auto& f : b.files_to_create()) {
    auto made = sys::make_file_under(home, f.path, f.content, 0600);
    if (!made) {
      Error e = made.error();
      e.where = f.origin.detail + ": " + e.where;
      return e;
    }
    if (*made) say({"created " + f.path + " (" + f.origin.detail + ")"});
  }
  return {};
}

RunOutcome Run::go() {
  auto ctx = HostContext::from_process();
  if (!ctx) return fail(ctx.error(), 125);
  ctx_ = std::move(*ctx);
  const RunProject* project = req_.project ? &*req_.project : nullptr;
  if (project) ctx_->cwd = project->dir;
  PolicyBuilder builder(*ctx_);
  if (project) {
    builder.cwd_access(Access::ReadWrite, {Origin::Kind::Cwd, project->origin});
    builder.cwd_is_jail_workspace();  // it lies in paddock's masked state (paddock/state.h)
  }
  if (req_.configure) {
    const ConfigureContext c{*ctx_, project ? std::string_view(project->profile) : "",
                             project && !project->home_dir.empty()};
    if (auto r = req_.configure(builder, c); !r) return fail(r.error(), 2);
  }
  if (!req_.skip_profile_state_because.empty()) {
    // The grants on that state are *_if_exists: nothing to bind, nothing granted.
    if (!builder.dirs_to_create().empty() || !builder.files_to_create().empty())
      say({req_.skip_profile_state_because + ": its state in HOME is not created (nothing is made on the host)"});
  } else if (auto r = create_profile_state(builder, ctx_->home); !r) {
    return fail(r.error(), 2);
  }
  if (project && project->add) project->add(builder);
  if (!project) {
    // In a linked git worktree the repository's git directory lies outside the project: the
    // grants git needs there, hooks and config read-only (jail/git_grants.h).
    auto wt = jail::find_linked_worktree(ctx_->cwd);
    if (!wt) {
      say({"warning: " + wt.error().describe()});
    } else if (*wt) {
      jail::add_worktree_grants(builder, **wt, "refs", {Origin::Kind::BuiltIn, "linked git worktree " + (*wt)->top});
      say({"linked git worktree: " + (*wt)->common_dir +
           " writable (refs, its own git directory, objects through a private store; hooks and config read-only)"});
    }
  }
  // paddock's own state exists before the policy is applied, so the sandbox finds it masked rather
  // than absent and creatable (paddock/state.h). Best effort: a run never fails on it.
  if (const std::string& state = ctx_->state.user_dir; path_is_under_home(state, ctx_->home)) {
    (void)sys::make_dir_under(ctx_->home, state, 0700);
  }
  undo_settings_ = builder.undo_settings();
  const bool undo = req_.undo || undo_settings_.enabled.value_or(false);
  out_.footer_quiet = builder.footer_is_quiet();
  if (project) out_.home_from = project->home_dir;
  auto policy = builder.build();
  if (!policy) return fail(policy.error(), 2);
  out_.policy = std::move(*policy);
  policy_ = &*out_.policy;
  // A subdirectory of a repository: said, with the top level offered; not defaulted to, which would
  // make the whole repository (its other projects too) writable when the user named one directory.
  if (!project) {
    if (auto top = jail::enclosing_repository_top(policy_->cwd)) {
      const bool granted = std::any_of(policy_->paths.begin(), policy_->paths.end(), [&](const PathRule& r) {
        return *top == r.path || top->rfind(r.path == "/" ? r.path : r.path + "/", 0) == 0;
      });
      if (!granted) say({jail::enclosing_repository_line(policy_->cwd, *top)});
    }
  }
  // The agent profile's own arguments ([command]: Codex told that paddock is its sandbox), said in
  // one line; the user's choices that cannot work inside are warned about now and after the run.
  out_.command = req_.command;
  if (const auto& setup = builder.command_setup()) {
    CommandAdjustment adj = adjust_command(req_.command, *setup);
    if (adj.applied) {
      out_.command = adj.argv;
      std::string added;
      for (const auto& a : setup->args) added += " " + a;
      if (!added.empty()) say({setup->name + ": added" + added + " (" + setup->origin.detail + ", [command])"});
      for (const auto& c : adj.conflicts)
        out_.command_warnings.push_back("warning: " + setup->name + " " + c + ": " + setup->conflict_message);
      say(out_.command_warnings);
    }
  }
  if (!req_.backend.empty() && req_.backend != "native") return run_with_backend(req_.backend);
  return run_native(undo);
}

RunOutcome& Run::run_with_backend(const std::string& backend) {
  auto jail = jail::make_jail(backend);
  if (!jail) return fail(jail.error(), 2);
  if (req_.exec || !req_.net_log.empty() || !req_.denials.empty() || !req_.report.empty() || req_.undo)
    return fail(make_error("--exec, --net-log, --denials, --report and --undo need the native backend",
                           "--backend " + backend),
                2);
  jail::RunOpts jo;
  jo.workspace.path = policy_->cwd;
  if (req_.project) {
    jo.workspace.home_dir = req_.project->home_dir;
    jo.workspace.mounts = req_.project->mounts;
  }
  jo.command = out_.command;
  // Said before the run, every time: what this backend does not enforce.
  std::vector<std::string> lines;
  for (const auto& m : (*jail)->missing_guarantees(*policy_)) lines.push_back("backend " + backend + ": not enforced: " + m);
  say(lines);
  auto rc = (*jail)->run(*policy_, jo);
  say(out_.command_warnings);
  if (!rc) return fail(rc.error(), 125);
  out_.exit_code = *rc;
  return out_;
}

RunOutcome& Run::run_native(bool undo) {
  Policy& policy = *policy_;
  const RunProject* project = req_.project ? &*req_.project : nullptr;
  RunOptions opts;
  opts.argv = out_.command;
  if (project && !project->home_dir.empty())
    opts.mounts.push_back({policy.home, project->home_dir, Access::ReadWrite, 0, {}, {}});
  if (project) opts.mounts.insert(opts.mounts.end(), project->mounts.begin(), project->mounts.end());
  opts.pty = req_.pty;
  opts.state_dir = ctx_->state.user_dir;
  opts.test_resolve = req_.test_resolve;
  opts.count_output = !req_.report.empty();
  if (!req_.net_log.empty()) {
    auto log = open_net_log(req_.net_log, policy);
    if (!log) return fail(log.error(), 2);
    opts.on_network_decision = std::move(*log);
    // Where the command can write, it can rewrite the log too: say so rather than let a user trust it.
    if (writable_inside(policy, req_.net_log))
      say({"warning: --net-log " + req_.net_log + " is writable inside the sandbox: the command can alter it"});
  }
  if (!req_.denials.empty()) {
    if (req_.exec)
      return fail(make_error("--denials needs the parent that stays behind to record what is refused; --exec removes "
                             "it",
                             "--exec --denials", "drop one of them"),
                  2);
    auto log = open_denials_log(req_.denials);
    if (!log) return fail(log.error(), 2);
    opts.on_denial = std::move(*log);
    if (writable_inside(policy, req_.denials))
      say({"warning: --denials " + req_.denials + " is writable inside the sandbox: the command can alter it"});
  }
  // The report's directory is taken now, before the sandbox exists: the command may be able to
  // write there and swap it for a symlink; the report is then written relative to this descriptor.
  sys::UniqueFd report_dir;
  std::string report_name;
  if (!req_.report.empty()) {
    auto parts = sys::split_file_path(req_.report);
    if (!parts) return fail(make_error(parts.error().message, "--report " + req_.report), 2);
    auto dir = sys::open_dir_no_symlinks(parts->first);
    if (!dir) return fail(make_error(dir.error().describe(), "--report " + req_.report, dir.error().hint), 2);
    report_dir = std::move(*dir);
    report_name = parts->second;
  }
  if (req_.exec && undo) {
    return fail(make_error("--undo needs the parent that stays behind to take the last snapshot; --exec removes it",
                           "--exec --undo", "drop one of them"),
                2);
  }
  if (undo && !req_.wrapper.before) {
    return fail(make_error("undo is asked for (by --undo or the profile's [undo] enabled) and nothing takes its "
                           "snapshots", "run request", "give RunRequest::wrapper (the command line's undo)"),
                2);
  }
  if (req_.exec) {
    // No parent stays behind to sweep: a process the command detaches (setsid, double fork) outlives
    // it and keeps every right the sandbox had, writes included (issue 12 item 9).
    for (const PathRule& r : policy.paths) {
      if (!grants(r.access, Access::Write)) continue;
      say({"warning: --exec leaves no parent to stop what the command starts: a process it detaches keeps running "
           "after it and can still write to " + r.path + " (and every other writable path)"});
      break;
    }
    auto r = exec_in_place(policy, opts);
    return fail(r.error(), 125);  // only returns on failure
  }
  // The repository the project works in keeps its objects: the run writes a private object
  // directory, imported through a verifying step after it, and the refs it moved are checked
  // (src/jail/repository_run.h). Not with --exec: no parent stays to import. A jail brings its own.
  std::optional<jail::RepositoryRun> repo_run;
  if (!project) {
    auto writable = [&](const std::string& p) { return writable_inside(policy, p); };
    auto spec = jail::repository_of(ctx_->cwd, ctx_->state.git_objects_dir, writable);
    if (!spec) return fail(spec.error(), 125);
    if (*spec) {
      auto rr = jail::RepositoryRun::before(**spec);
      if (!rr) return fail(rr.error(), 125);
      for (SandboxMount& m : rr->mounts()) opts.mounts.push_back(std::move(m));
      repo_run = std::move(*rr);
    }
  }
  // Undo: the writable paths are snapshotted before the sandbox exists and after it is gone.
  const bool wrapped = undo;
  if (wrapped) req_.wrapper.before(undo_settings_, *ctx_, policy, opts);
  auto res = run(policy, opts);
  // With namespaces the run wrote only the private object directory (the fallback has no mounts).
  if (repo_run) say(repo_run->after(res && res->isolation_gaps.empty()));
  if (!res) return fail(res.error(), 125);
  // Always said: the user needs the session id to take the run back.
  if (wrapped && req_.wrapper.after) say(req_.wrapper.after());
  if (!req_.report.empty()) {
    if (auto w = write_report_at(report_dir.get(), report_name, run_report(*res, policy, opts.argv)); !w)
      out_.report_error = w.error();
  }
  out_.exit_code = res->shell_code();
  out_.result = std::move(*res);
  return out_;
}

}  // namespace

RunOutcome run_request(RunRequest req) { return Run(std::move(req)).go(); }

}  // namespace paddock
