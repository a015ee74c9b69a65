// paddock's own state, defined once: where the undo store, the jails, the private git object
// stores and host mode's state live, and which directories no sandbox may see.
//
// What this owns: the layout (StateLayout) and the one function that computes it
// (state_layout(), implemented in src/policy/state_layout.cc). Every face finds its store here —
// `run --undo`, `undo` and `checkpoint` (undo_dir), `jail` (jails_dir), runs in a repository
// (git_objects_dir), `host` (host_agent_state_dir, kHostManifest) — and every policy masks
// masked() (PolicyBuilder::build: masked wherever a rule shows it, refused when a rule names it,
// watched when absent and writable). What it may not touch: the file system (no directory is
// made or opened here; each store makes its own).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "paddock/result.h"

namespace paddock {

inline constexpr const char* kStateDirReason =
    "paddock's own state (undo store, jails): never visible or grantable inside a sandbox";

// Root's system-wide state: root's jails, and host mode's agents and manifest.
inline constexpr const char* kSystemStateDir = "/var/lib/paddock";
// Host mode's install manifest (docs/host.md).
inline constexpr const char* kHostManifest = "/var/lib/paddock/host-manifest.json";
// Host mode's default state directory for AGENT (host.toml's state_dir): /var/lib/paddock/agents/AGENT.
std::string host_agent_state_dir(std::string_view agent);

// What the layout depends on.
struct StateInputs {
  unsigned uid = 0;
  std::string home;            // absolute
  std::string xdg_state_home;  // $XDG_STATE_HOME; used only when absolute
  std::string jails_dir;       // $PADDOCK_JAILS_DIR: a jail store elsewhere (another disk, a test's)
  // XDG_STATE_HOME and PADDOCK_JAILS_DIR from this process's environment, for UID and HOME.
  static StateInputs from_environment(unsigned uid, std::string home);
};

// Where one user's paddock keeps its state. Paths are lexically normal.
struct StateLayout {
  std::string user_dir;         // $XDG_STATE_HOME/paddock (when absolute), else HOME/.local/state/paddock
  std::string undo_dir;         // user_dir/undo: the undo store (docs/undo.md)
  std::string git_objects_dir;  // user_dir/git-objects: runs' private object stores (src/jail/repository_run.h)
  // $PADDOCK_JAILS_DIR when set (kept as given when relative: the store refuses it); else, for
  // root, /var/lib/paddock/jails; else user_dir/jails.
  std::string jails_dir;
  std::string system_dir;  // kSystemStateDir for root; empty for other users (it is not theirs)

  bool empty() const { return user_dir.empty(); }
  // Every directory of this state no sandbox may see: user_dir, system_dir when set, and
  // jails_dir when it is absolute and lies in neither. A jail's workspace, strictly below
  // jails_dir, is the one place inside that paddock itself may grant (a jail's own run).
  std::vector<std::string> masked() const;
};

StateLayout state_layout(const StateInputs& in);
// The layout of this process's user: getuid(), $HOME when absolute (else the passwd entry's
// home), the environment. For callers without a HostContext (HostContext::from_process fills
// HostContext::state the same way).
Result<StateLayout> state_layout_of_process();

}  // namespace paddock
