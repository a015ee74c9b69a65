// The denylist as data, shared by seccomp_policy.cc (the documented list) and the build-time
// compiler (seccomp_gen/seccomp_compiler.cc). Nothing here needs libseccomp.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/seccomp_policy.h"

namespace paddock::engine {

struct SeccompRule {
  const char* name;  // syscall name, resolved by libseccomp; absent on the architecture: skipped
  int err;           // the errno the call fails with
  const char* why;
  unsigned arg = 0;         // which argument the filter compares
  std::uint64_t mask = 0;   // (arg & mask) == value; mask 0: no argument filter
  std::uint64_t value = 0;
  const char* label = nullptr;  // how the entry is shown ("ioctl(TIOCSTI)"); null: the name
};

// In the order they are added to the filter.
std::vector<SeccompRule> seccomp_rules(const SeccompOptions& opts);

}  // namespace paddock::engine
