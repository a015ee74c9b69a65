// Build-time only: compiles the denylist (engine/seccomp_policy_rules.h) into BPF with libseccomp.
// Linked into paddock-seccomp-gen and the unit tests, never into libpaddock or the paddock binary.
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

#include "engine/seccomp_policy.h"
#include "paddock/result.h"

namespace paddock::engine {

// The BPF program for the architecture this code was compiled for. Syscalls from any other ABI
// (i386 via int 0x80, x32) fail with ENOSYS.
Result<std::vector<sock_filter>> build_seccomp_program(const SeccompOptions& opts);

// The same filter as libseccomp's pseudo filter code, for people to read.
Result<std::string> seccomp_program_text(const SeccompOptions& opts);

// The syscall number each of seccomp_rules(opts) resolves to here (-1: not on this architecture).
std::vector<int> seccomp_rule_numbers_built(const SeccompOptions& opts);

}  // namespace paddock::engine
