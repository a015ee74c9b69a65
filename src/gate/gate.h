// The gate: one place that knows what the host runs or trusts, and that every door content a
// sandbox chose can land on the host through asks (issue 25).
//
// The doors: the end of a run (every mode, overlay jails and the fallback included:
// src/engine/spawn.cc takes a Check before the sandbox starts, src/engine/monitor.cc finishes it),
// an undo restore (src/undo), a jail's diff, sync and to-branch (src/jail), and every git paddock
// runs itself on data a sandbox wrote (src/jail/process.cc runs it with nothing the run could
// have written as its config). docs/isolation.md has the table of doors and classes, each cell
// with the test that covers it.
//
// What the host runs or trusts, by class, and where each list lives:
//   Git         git's own rules for finding a repository and what it then runs (git_watch.cc):
//               `.git` entries, bare and split git directories (HEAD + commondir), config,
//               config.worktree, hooks, info/attributes, objects/info/alternates.
//   HostRun     files host tools run or trust in a project or HOME: editors' tasks, direnv,
//               agents' project settings, build tools' config, shell start-up files
//               (src/policy/protected_paths.cc, which also keeps them read-only during a run).
//   AgentConfig agents' own configuration in HOME, key by key (agent_config.cc).
//   Toolchain   language toolchains' start-up hooks (toolchain.cc).
//   SetId, Special  set-id files, device nodes, FIFOs and sockets (seccomp and Landlock stop them
//               inside; the doors that write modes themselves check them here).
//
// Two questions, for two kinds of door:
//   judge_path()  before writing: what an entry would be to the host, by its path and type alone.
//                 Conservative, for lists a door is about to write (a restore, a sync): whatever it
//                 names is held back, moved aside or refused, and said.
//   Check         after writing: everything a door created or changed in host trees that the host
//                 now runs or trusts, by the tools' full rules (a repository assembled from pieces
//                 is found although no single name gave it away): moved aside or put back, listed.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gate/mask_watch.h"
#include "gate/watch.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::gate {

// What a root is to the host: a project (work tree) or a HOME.
enum class RootKind { Workspace, Home };

enum class Class {
  Git,          // makes git find a repository, or is one's control file
  HostRun,      // a file a host tool runs or trusts (protected paths)
  AgentConfig,  // an agent's own configuration in HOME
  Toolchain,    // a language toolchain's start-up hook
  SetId,        // a set-user-ID or set-group-ID file
  Special,      // a device node, FIFO or socket
};
std::string_view to_string(Class c);

struct Verdict {
  Class cls;
  std::string why;  // what on the host runs or trusts it
};

// What an entry of MODE (st_mode; 0 when unknown: judged by path alone) at REL would be to the
// host. REL is relative to a root of KIND, '/'-separated, without "." or ".." components or
// leading slash (anything else is judged as dangerous: nothing is guessed). nullopt: nothing the
// host runs or trusts, by its path and type.
std::optional<Verdict> judge_path(std::string_view rel, RootKind kind, mode_t mode);

// Whether REL ('/'-separated, relative) has a `.git` component: a repository's own data (objects,
// refs, control files), never a project file, so never part of a jail's changes (judge_path
// names it Class::Git too).
bool in_git_directory(std::string_view rel);

// An area a door writes into.
struct Area {
  std::string path;  // absolute host directory
  RootKind kind = RootKind::Workspace;
};

// Whether an absolute path the check found was written with content paddock trusts (an undo
// restore of what was there before any sandbox ran): left alone then.
using Trusted = std::function<bool(const std::string& path)>;

// Where a run's walk may keep its directory index (dir_index.h): STATE_DIR/gate, when neither
// POLICY nor MOUNTS let the sandbox write there; else nowhere (IndexPlace::dir empty).
IndexPlace index_place(const Policy& policy, const std::vector<SandboxMount>& mounts, const std::string& state_dir);

// The check after a door wrote. Taken before the write (from then on changes count), finished
// after it.
class Check {
 public:
  // A run: the policy's writable host-backed areas, the extra MOUNTS' (an overlay's upper
  // directory included), the protected paths, the agents' config in HOME, and the hidden paths
  // in writable areas (still where they were: mask_watch.h). STATE_DIR: paddock's own state
  // (RunOptions::state_dir), where the walk of large trees keeps what it listed between runs
  // (dir_index.h) when neither the policy nor MOUNTS let the sandbox write there.
  static Check before_run(const Policy& policy, const std::vector<SandboxMount>& mounts,
                          const std::string& state_dir = {});
  // Another door (a restore, a sync): the areas it is about to write into.
  static Check before_write(const std::vector<Area>& areas);

  // What the door left that the host runs or trusts: moved aside (or put back), in a stable
  // order. Paths TRUSTED says yes to are left alone.
  // COST, when given, says what the walk of the writable trees read.
  std::vector<LeftBehind> after(const Trusted& trusted = {}, WalkCost* cost = nullptr) const;

  // Regular files the run wrote in the writable areas that are exactly SIZE bytes long (where
  // --max-file-size stopped a write). At most MAX.
  std::vector<std::string> files_at_size(std::uint64_t size, std::size_t max) const {
    return watch_.files_at_size(size, max);
  }

 private:
  Watch watch_;
  MaskWatch masks_;
};

}  // namespace paddock::gate
