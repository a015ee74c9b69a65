// The sensitive-path list: credentials, keyrings, shell histories and browser profiles that are
// hidden even inside an allowed parent, unless a rule names exactly that path. Documented in
// docs/policy.md ("Sensitive paths"); keep the two in step.
#pragma once

#include <string>
#include <vector>

#include "paddock/policy.h"

namespace paddock {

struct SensitiveEntry {
  const char* path;    // relative to HOME when it does not start with '/'
  const char* reason;
};

// The list as written (HOME-relative and absolute entries).
const std::vector<SensitiveEntry>& sensitive_entries();

// One entry made absolute; `reason` points into the static list (no copy).
struct SensitivePath {
  std::string path;
  const char* reason;
};

// The list with HOME-relative entries made absolute against `home` (normalised). Entries at or
// above `home` itself are left out (for root, /root is HOME, not someone else's secrets).
std::vector<SensitivePath> sensitive_path_list(const std::string& home);
// The same as DeniedPaths (copies the reasons).
std::vector<DeniedPath> sensitive_paths(const std::string& home);

}  // namespace paddock
