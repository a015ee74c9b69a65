// The child side: applies a Plan between clone and exec. Async-signal-safe only: no allocation,
// no locks, no stdio, no logging. Failures are reported as a ChildMessage on plan.report_fd.
#pragma once

#include "engine/plan.h"

namespace paddock::engine {

// Runs as the sandbox's first process (pid 1 of its pid namespace when there is one): builds the
// sandbox, forks the command, then stays as a minimal init that reaps, forwards signals and
// reports the command's wait status. Never returns.
[[noreturn]] void child_main(const Plan& plan);

// Sets close-on-exec on every open descriptor >= LO: the fallback for kernels whose close_range
// lacks CLOEXEC (before 5.11). Async-signal-safe: it reads /proc/self/fd with getdents64 into a
// stack buffer, so no descriptor escapes however high it is (RLIMIT_NOFILE may be far above
// 65536). Exposed for tests.
void mark_cloexec_from(int lo);

}  // namespace paddock::engine
