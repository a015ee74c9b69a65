// The protected-path list: files the host executes or loads later on the user's behalf (VCS hooks
// and config, direnv files, editor task configs, shell start-up files). Kept read-only inside
// writable areas unless a rule names exactly that path. Documented in docs/policy.md
// ("Protected paths"); keep the two in step.
#pragma once

#include <vector>

namespace paddock {

struct ProtectedEntry {
  const char* path;    // relative: to a writable rule root (workspace) or to HOME
  const char* reason;
};

// Relative to the root of every writable area (a project directory).
const std::vector<ProtectedEntry>& workspace_protected_entries();
// Relative to HOME; apply when that place is writable inside the sandbox.
const std::vector<ProtectedEntry>& home_protected_entries();

}  // namespace paddock
