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
  // A second comparison that must hold as well ((arg2 & mask2) == value2; mask2 0: none), e.g.
  // open's flags having O_CREAT *and* its mode having S_ISUID.
  unsigned arg2 = 0;
  std::uint64_t mask2 = 0;
  std::uint64_t value2 = 0;
  // The syscall's number on this architecture when libseccomp is too old to know its name
  // (fchmodat2 with Debian 12's 2.5.4); -1: none.
  int nr_fallback = -1;
};

// The set-id refusal (issue 12, item 3; seccomp_mode_rules.cc): no mode with S_ISUID or S_ISGID
// can be given to a file from inside.
std::vector<SeccompRule> setid_mode_rules();

// In the order they are added to the filter.
std::vector<SeccompRule> seccomp_rules(const SeccompOptions& opts);

}  // namespace paddock::engine
