// `jail exec` and `jail enter` (paddock/jail.h): a command line's run (paddock/run.h) with the
// jail's workspace as the project, its HOME, and for a worktree its git grants and repository
// guard, under the jail's shared lock.
#include <memory>
#include <utility>

#include "jail/git_grants.h"
#include "jail/repository_run.h"
#include "paddock/jail.h"
#include "paddock/jail_backend.h"
#include "policy/units.h"

namespace paddock::jail {

RunOutcome exec(const Store& st, std::string_view name, RunRequest req) {
  RunOutcome refused;
  auto refuse = [&](Error e, int code) {
    refused.error = std::move(e);
    refused.exit_code = code;
    return refused;
  };
  auto r = st.load(name);
  if (!r) return refuse(r.error(), 1);
  if (req.backend.empty()) req.backend = r->backend;
  if (auto b = make_jail(req.backend); !b) return refuse(b.error(), 2);
  // Shared: several commands may run in one jail at once (as in one project); rm, prune and
  // sync wait for none of them and are refused while any runs.
  auto lock = st.lock(name, false);
  if (!lock) return refuse(lock.error(), 1);
  if (r->max_size_bytes) {
    auto used = disk_usage(r->jail_root);
    if (!used) return refuse(used.error(), 1);
    if (*used > *r->max_size_bytes) {
      return refuse(make_error("jail " + r->name + " uses " + format_size(*used) + ", over its size cap of " +
                                   format_size(*r->max_size_bytes),
                               r->jail_root, "free space in its workspace or HOME, or paddock jail rm " + r->name),
                    1);
    }
  }
  lock->touch();  // last_used

  RunProject project;
  project.dir = r->workspace_root;
  project.origin = "jail " + r->name + " (" + std::string(to_string(r->workspace_mode)) + " workspace)";
  project.profile = r->profile;
  if (r->home_mode == HomeMode::Stable) project.home_dir = r->home_root;
  if (r->workspace_mode == WorkspaceMode::Overlay) {
    const std::string dir = r->workspace_root.substr(0, r->workspace_root.rfind('/'));
    project.mounts.push_back({r->workspace_root, r->source, Access::ReadWrite, 0, dir + "/upper", dir + "/work"});
  }
  // A worktree's runs write a private object directory, imported through a verifying step
  // after each run; the refs they moved are checked (src/jail/repository_run.h).
  std::optional<RepositoryRun> repo_run;
  if (r->workspace_mode == WorkspaceMode::Worktree) {
    auto rr = RepositoryRun::before(jail_repository(*r));
    if (!rr) return refuse(rr.error(), 1);
    for (SandboxMount& m : rr->mounts()) project.mounts.push_back(std::move(m));
    repo_run = std::move(*rr);
  }
  const Runtime rt = *r;
  project.add = [rt](PolicyBuilder& b) {
    b.set_env("PADDOCK_JAIL", rt.name);
    if (rt.workspace_mode != WorkspaceMode::Worktree) return;
    // Git-aware grants (docs/jails.md): only this jail's branch is writable among the refs.
    add_worktree_grants(b, {rt.workspace_root, rt.git_dir, rt.git_common_dir}, "refs/heads/paddock",
                        {Origin::Kind::BuiltIn, "jail " + rt.name + ": git worktree"});
  };
  req.project = std::move(project);
  RunOutcome out = run_request(std::move(req));
  // Said last, after everything about the run itself (its footer).
  if (repo_run) {
    auto lines = repo_run->after();
    out.closing.insert(out.closing.end(), lines.begin(), lines.end());
  }
  return out;
}

}  // namespace paddock::jail
