// The host system every sandbox sees, read-only: the builder grants these to every policy (unless
// a caller opts out: PolicyBuilder::no_system_defaults). Whatever lies under them is visible in
// every run, so host mode refuses an agent's state there (src/host/config.cc).
#pragma once

#include <string>
#include <vector>

namespace paddock {

// Each may be absent on a host (skipped) or a symlink (merged /usr: /bin -> usr/bin).
const std::vector<std::string>& system_paths();

}  // namespace paddock
