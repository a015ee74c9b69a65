// The protected-path list: files the host executes or loads later on the user's behalf (VCS hooks
// and config, direnv files, editor task configs, shell start-up files). Kept read-only inside
// writable areas unless a rule names exactly that path. Documented in docs/policy.md
// ("Protected paths"); keep the two in step.
#pragma once

#include <vector>

#include "agents/host_config.h"  // ProtectedEntry

namespace paddock {

// Relative to the root of every writable area (a project directory): the list below and every
// registered agent's project files (AgentInfo::project_files).
const std::vector<ProtectedEntry>& workspace_protected_entries();
// Relative to HOME; apply when that place is writable inside the sandbox.
const std::vector<ProtectedEntry>& home_protected_entries();

}  // namespace paddock
