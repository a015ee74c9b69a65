// Resource control for one run: cgroups (v2 delegated subtree, v1 controllers, or both on a
// hybrid host) with rlimit fallbacks. Planned in the parent before clone; the child only writes
// "0" into the attach fds and applies the rlimits; the parent reads usage and cleans up.
// The engine calls it in this order: create -> (clone) -> started -> kill_all? -> finish.
// See docs/limits.md for what is enforced how.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "paddock/features.h"
#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

struct CgroupLayout;

struct RlimitSpec {
  int resource;  // RLIMIT_*
  struct rlimit value;
};

class ResourceControl {
 public:
  virtual ~ResourceControl() = default;
  // Whether the run has cgroups at all (they are read and removed after it).
  virtual bool has_cgroups() const = 0;
  // Descriptors (opened O_WRONLY|O_CLOEXEC in the parent) that a single-threaded process writes
  // "0" into to move itself into every cgroup of the run: cgroup2's cgroup.procs and each v1
  // hierarchy's "tasks". Written before anything else (async-signal-safe); a failed write is a
  // setup failure ("join cgroup"), never ignored. `paddock run --exec` uses all of them.
  virtual std::vector<int> attach_fds() const = 0;
  // The part of attach_fds() a freshly cloned child writes itself: the v1 "tasks" files. A
  // thread moving itself through "tasks" takes no global lock, while any other migration (a
  // pid written by another process, or cgroup.procs) takes cgroup_threadgroup_rwsem for
  // writing and so waits out an RCU grace period (measured here: 0.04 ms against 5-20 ms).
  virtual std::vector<int> self_attach_fds() const = 0;
  // The way out, for the sandbox's init once every other process of the run is gone: the v1
  // "tasks" files of paddock's own cgroups, one per v1 hierarchy the run has a cgroup in. The
  // init writes "0" into each (no global lock either), so the run's cgroups are empty and can be
  // removed at once instead of after the init's exit (its namespaces' teardown). Empty when the
  // run has a cgroup2 cgroup (leaving it would take the global lock) or one cannot be opened.
  // Only the init holds them: close-on-exec, and the init is not dumpable (no /proc/1/fd, no
  // pidfd_getfd()), so the command can never use them to leave its limits.
  virtual std::vector<int> leave_fds() const = 0;
  // Applied in the child with setrlimit before exec (soft = hard, so the sandbox cannot raise
  // them). A failed setrlimit is a setup failure.
  virtual std::vector<RlimitSpec> rlimits() const = 0;
  // cgroup2 when the child was not born in it (no CLONE_INTO_CGROUP): the parent moves `pid`
  // (its child, in the parent's pid namespace) into the run's cgroup2 cgroup, right after clone
  // while the child builds its mounts (the migration's wait overlaps them); the child must not
  // fork or exec before the parent says it is attached. The v1 hierarchies are the child's
  // own job (self_attach_fds()). Parent only.
  virtual Result<void> attach(pid_t pid) = 0;
  // cgroup2: a descriptor of the run's cgroup directory for clone3's CLONE_INTO_CGROUP, so the
  // child is born in it (no migration at all); -1 when there is none. Once a clone used it,
  // call born_in_cgroup() so attach() has nothing left to do.
  virtual int clone_into_fd() const { return -1; }
  virtual void born_in_cgroup() {}
  // Non-zero: the sandbox's pid 1 writes this into /proc/sys/kernel/pid_max (its own pid
  // namespace's, Linux 6.14+) before anything else runs, which bounds the tasks alive in the
  // sandbox (the built-in process ceiling). The child refuses to write it unless it is pid 1.
  virtual std::uint64_t pid_max() const { return 0; }
  // The sandbox's first process is running as `pid` (in the parent's pid namespace).
  virtual void started(pid_t pid) = 0;
  // Kills every process of the run (cgroup.kill on v2, SIGKILL to each member on v1, repeated
  // until none is left); false if it cannot (no cgroup) or members remain after ~2 s.
  virtual bool kill_all() = 0;
  // After the tree is gone (set result.timed_out / status / signal first): kills leftovers,
  // sets result.oom, peak memory and user/sys CPU when a cgroup measured them (otherwise leaves
  // the engine's rusage figures alone), replaces result.limits with one LimitReport per
  // requested limit (memory, pids, cpu, timeout, tmp-size, home-size, max-file-size,
  // max-open-files, core-dumps), appends warnings() to result.warnings, and removes the cgroups
  // it created. Call once (or collect() and remove_cgroups() instead).
  virtual void finish(RunResult& result) = 0;
  // finish() in two steps, for a run whose init reported that the rest of the tree is gone but
  // may itself still be exiting (and so still be in the cgroups): collect() sets what finish()
  // sets without killing anyone or removing anything; remove_cgroups(), once the init has been
  // reaped, removes the cgroups and returns a warning for each it could not.
  virtual void collect(RunResult& result) = 0;
  virtual std::vector<std::string> remove_cgroups() = 0;
  // One line per limit that is weaker than asked or not enforced, known from creation on (for
  // showing before the run). finish() appends these to result.warnings: do not add them twice.
  virtual std::vector<std::string> warnings() const = 0;
  // How the run is contained, for doctor/debug: "cgroup v1 memory,pids + cgroup2 (kill)".
  virtual std::string describe() const = 0;
};

// What the engine will do around the resource control; changes how limits are enforced.
struct ResourceOptions {
  // The child runs in its own user namespace. RLIMIT_NPROC then counts only the sandbox's own
  // processes (Linux >= 5.14 counts per user namespace), so it is a usable --pids fallback.
  bool new_user_namespace = false;
  // The child is pid 1 of its own pid namespace: killing it kills the whole tree.
  bool new_pid_namespace = false;
  // /proc/sys/kernel/pid_max is per pid namespace and writable there (pid_namespace_pid_max()):
  // the built-in process ceiling then costs one write in the child, no cgroup.
  bool pid_namespace_pid_max = false;
};

// Whether a new pid namespace gets its own, writable kernel.pid_max: Linux 6.14 or later and
// /proc/sys not mounted read-only (containers). Read from uname because it cannot be probed
// without making a namespace, and a wrong "yes" must never happen: on older kernels the file is
// the host's (host root inside a user namespace could change it). The child also checks that it
// is pid 1 of a new pid namespace before it writes.
bool pid_namespace_pid_max();

// Plans resource control for `limits` on this host (reads /proc/self/mountinfo and
// /proc/self/cgroup; creates the run's cgroups when it can). Error when a requested limit
// cannot be enforced at all and limits.best_effort is false, or a value is out of range.
Result<std::unique_ptr<ResourceControl>> create_resource_control(const Limits& limits,
                                                                 const Features& features,
                                                                 const ResourceOptions& options = {});
// The same on a given cgroup layout (tests; `paddock doctor`).
Result<std::unique_ptr<ResourceControl>> create_resource_control(const Limits& limits,
                                                                 const CgroupLayout& layout,
                                                                 const ResourceOptions& options);

}  // namespace paddock::engine
