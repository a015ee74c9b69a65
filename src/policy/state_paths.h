// paddock's own state: $XDG_STATE_HOME/paddock (default ~/.local/state/paddock), which holds the
// undo store (docs/undo.md) and jails. Never visible inside a sandbox: the builder masks the
// whole directory even when a rule on a parent (`--allow ~`, `--allow ~/.local/state`) shows it,
// and refuses a user rule (flag, profile, the current directory) at or under it. Rules paddock
// adds itself (Origin BuiltIn, e.g. a jail's own workspace) may lie strictly inside: they are
// mounted over the mask. `paddock why` names the rule.
#pragma once

#include <string>
#include <vector>

#include "paddock/policy.h"

namespace paddock {

inline constexpr const char* kStateDirReason =
    "paddock's own state (undo store, jails): never visible or grantable inside a sandbox";

// $XDG_STATE_HOME/paddock for CTX (its state_home, else HOME/.local/state), lexically normal.
std::string paddock_state_dir(const HostContext& ctx);

// Where root's system-wide state lives (jails of root: src/jail/store.cc; host mode's defaults).
inline constexpr const char* kSystemStateDir = "/var/lib/paddock";
// Every directory of paddock's state the policy for CTX must mask and refuse: paddock_state_dir(),
// and for root also kSystemStateDir.
std::vector<std::string> paddock_state_dirs(const HostContext& ctx);

}  // namespace paddock
