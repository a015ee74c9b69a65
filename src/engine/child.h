// The child side: applies a Plan between clone and exec. Async-signal-safe only: no allocation,
// no locks, no stdio, no logging. Failures are reported as a ChildMessage on plan.report_fd.
#pragma once

#include "engine/plan.h"

namespace paddock::engine {

// Runs as the sandbox's first process (pid 1 of its pid namespace when there is one): builds the
// sandbox, forks the command, then stays as a minimal init that reaps, forwards signals and
// reports the command's wait status. Never returns.
[[noreturn]] void child_main(const Plan& plan);

}  // namespace paddock::engine
