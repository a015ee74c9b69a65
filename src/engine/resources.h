// Resource control for one run: cgroups (v2 delegated subtree or systemd scope, or v1
// controllers) with rlimit fallbacks. Planned in the parent before clone; the child only writes
// "0" into the attach fds and applies the rlimits; the parent reads usage and cleans up.
// The engine calls it in this order: create -> (clone) -> started -> kill_all? -> finish.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <memory>
#include <vector>

#include "paddock/features.h"
#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

struct RlimitSpec {
  int resource;  // RLIMIT_*
  struct rlimit value;
};

class ResourceControl {
 public:
  virtual ~ResourceControl() = default;
  // cgroup.procs (v2) or tasks/cgroup.procs (v1) fds, opened O_WRONLY|O_CLOEXEC in the parent.
  // The child writes "0" into each before it does anything else (async-signal-safe).
  virtual std::vector<int> attach_fds() const = 0;
  // Applied in the child with setrlimit before exec.
  virtual std::vector<RlimitSpec> rlimits() const = 0;
  // The sandbox's first process is running as `pid` (in the parent's pid namespace).
  virtual void started(pid_t pid) = 0;
  // Kills every process of the run (cgroup.kill / freeze+kill); false if it cannot (no cgroup).
  virtual bool kill_all() = 0;
  // After the tree is gone: fills oom, peak memory, cpu, processes, limits reports; removes
  // the cgroups it created.
  virtual void finish(RunResult& result) = 0;
};

// Plans resource control for `limits` on this host. Error when a requested limit cannot be
// enforced at all and limits.best_effort is false.
Result<std::unique_ptr<ResourceControl>> create_resource_control(const Limits& limits,
                                                                 const Features& features);

}  // namespace paddock::engine
