// Where this process's cgroups are: the cgroup2 mount (unified or hybrid) and each cgroup v1
// hierarchy with its controllers, joined with /proc/self/cgroup. Parsing is pure so tests can
// feed it the text of any host's mountinfo and cgroup files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "paddock/result.h"

namespace paddock::engine {

struct CgroupLayout {
  // cgroup2: the directory of this process's own cgroup ("" when cgroup2 is not mounted).
  std::string v2_own_dir;
  bool v2_is_unified = false;  // cgroup2 at the main mount point, no v1 controllers
  // cgroup v1: controller name ("memory", "pids", "cpu", "cpuacct", "freezer") -> the directory
  // of this process's own cgroup in the hierarchy holding it. Co-mounted controllers
  // ("cpu,cpuacct") map to the same directory.
  std::map<std::string, std::string> v1_own_dir;

  std::string describe() const;  // "cgroup2 /sys/fs/cgroup/unified/; v1 memory=/sys/fs/..."
};

// From the text of /proc/self/mountinfo and /proc/self/cgroup.
CgroupLayout parse_cgroup_layout(std::string_view mountinfo, std::string_view proc_cgroup);

// This process's layout, read now.
Result<CgroupLayout> discover_cgroup_layout();

// This process's cgroup2 directory without reading mountinfo: the "0::" line of /proc/self/cgroup
// under a cgroup2 mounted at /sys/fs/cgroup or /sys/fs/cgroup/unified (checked with statfs); ""
// where that finds none. Cheap enough for a run that makes no cgroup to sweep what a SIGKILLed
// paddock left there (a few syscalls; discover_cgroup_layout() reads all of mountinfo).
std::string cgroup2_own_dir_quick();

}  // namespace paddock::engine
