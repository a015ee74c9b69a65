// The capture scope of a run: every writable path of its policy, minus the excludes.
#pragma once

#include <string>
#include <vector>

#include "paddock/policy.h"
#include "undo/snapshot_manager.h"

namespace paddock::undo {

// Roots: the directories the policy lets the sandbox write (flags, profile, the current
// directory), none inside another. Left out, and said so in Scope::not_captured: file grants,
// "/", anything in paddock's own state. Excludes: EXCLUDES (the defaults and the user's), plus
// the policy's hidden (sensitive) paths inside a root, and paddock's own state (STATE_DIRS:
// StateLayout::masked(), wherever a jail store was moved).
Scope scope_from_policy(const Policy& policy, const std::vector<std::string>& state_dirs,
                        std::vector<Exclude> excludes);

}  // namespace paddock::undo
