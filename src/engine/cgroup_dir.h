// One cgroup directory paddock created for a run (v1 or v2): its control files, its member
// processes, and its removal. Move-only; the destructor removes the directory (killing what is
// left in it) so no error path leaks a cgroup.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

class CgroupDir {
 public:
  // mkdir(path, 0755) and opens its cgroup.procs (and, v1, its "tasks") for writing (O_CLOEXEC).
  // EACCES/EPERM/EROFS come back as errors with sys_errno set so callers can fall back.
  static Result<CgroupDir> create(std::string path, bool v2);

  CgroupDir() = default;
  CgroupDir(CgroupDir&&) noexcept;
  CgroupDir& operator=(CgroupDir&&) noexcept;
  ~CgroupDir();

  const std::string& path() const { return path_; }
  bool v2() const { return v2_; }
  bool valid() const { return !path_.empty(); }
  int procs_fd() const { return procs_fd_.get(); }
  // v1 only (else -1): "tasks", through which a thread that writes "0" moves itself without the
  // global lock any other migration takes (cgroup_procs_write_start(): no pid, no threadgroup).
  int tasks_fd() const { return tasks_fd_.get(); }
  bool has(std::string_view file) const;  // the control file exists

  Result<void> write(std::string_view file, std::string_view value) const;
  std::optional<std::string> read(std::string_view file) const;
  std::optional<std::uint64_t> read_u64(std::string_view file) const;  // "max" -> nullopt
  // "key value" lines (memory.events, cpu.stat, pids.events, memory.oom_control, cpuacct.stat).
  std::optional<std::uint64_t> read_key(std::string_view file, std::string_view key) const;

  std::vector<pid_t> procs() const;
  // SIGKILL to every member until none is left (cgroup.kill on v2 when the kernel has it).
  // False when members remain after `patience`.
  bool kill_all(std::chrono::milliseconds patience = std::chrono::milliseconds(2000)) const;
  // Kills what is left, then rmdir, retrying while the kernel still reports it busy.
  // True when the directory is gone.
  bool remove();

 private:
  std::string path_;
  bool v2_ = false;
  sys::UniqueFd procs_fd_;
  sys::UniqueFd tasks_fd_;
};

// Control files of any cgroup directory (CgroupDir's own read/write/procs use these).
Result<void> write_control(const std::string& path, std::string_view value);
std::optional<std::string> read_control(const std::string& path);
std::vector<pid_t> read_procs(const std::string& dir);  // the pids in dir/cgroup.procs

// The value of `key` in "key value" lines already read (read_key without the read).
std::optional<std::uint64_t> key_value(std::string_view text, std::string_view key);

// cgroup2: enables `controllers` ("+memory +pids") for the children of `dir`. The kernel refuses
// (EBUSY) while a non-root cgroup holds processes ("no internal processes"); when the only one
// is this process (paddock started alone in a delegated cgroup, e.g. a systemd scope), it moves
// itself into a leaf `dir/paddock-<pid>-self` and tries again (the leaf is swept like a stale
// run cgroup once the process is gone). Returns 0 or the errno of the last failure.
int enable_subtree_controllers(const std::string& dir, const std::string& controllers);
// Where the runs' cgroup2 cgroups of process `pid` go, given its own cgroup directory: that
// directory, or its parent when it is the leaf the process stepped aside into.
std::string cgroup2_run_parent(const std::string& own, pid_t pid);

// A fresh name for a run's cgroup: "paddock-<pid>-<random hex>".
std::string new_cgroup_name();

// Removes empty "paddock-<pid>-*" cgroups under `parent` whose paddock process is gone (it was
// killed before it could clean up). Best effort; returns how many were removed.
int sweep_stale_cgroups(const std::string& parent);

}  // namespace paddock::engine
