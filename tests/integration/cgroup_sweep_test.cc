// A SIGKILLed paddock cannot remove its run's cgroups; the next run removes the empty ones whose
// paddock is gone (docs/limits.md). In the unified hierarchy too: a run that makes no cgroup2
// cgroup of its own (with a pid namespace and no cgroup2 controller to use, the common case)
// still sweeps. The killed run is a fallback one, which always makes a cgroup2 cgroup (for
// cgroup.kill) where paddock's own is writable: as root here.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

using namespace std::chrono_literals;

// This process's cgroup2 directory ("" when cgroup2 is not mounted).
std::string own_cgroup2_dir() {
  std::string mount;
  std::ifstream mi("/proc/self/mountinfo");
  for (std::string line; std::getline(mi, line);) {
    if (line.find(" - cgroup2 ") == std::string::npos) continue;
    std::istringstream f(line);
    std::string id, parent, devno, root, at;
    f >> id >> parent >> devno >> root >> at;
    if (root == "/") mount = at;
  }
  if (mount.empty()) return "";
  std::ifstream cg("/proc/self/cgroup");
  for (std::string line; std::getline(cg, line);)
    if (line.rfind("0::", 0) == 0) return mount + (line.substr(3) == "/" ? "" : line.substr(3));
  return "";
}

std::vector<std::string> cgroups_of(const std::string& dir, pid_t pid) {
  std::vector<std::string> out;
  const std::string prefix = "paddock-" + std::to_string(pid) + "-";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) out.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  return out;
}

TEST(CgroupSweep, AKilledPaddocksUnifiedCgroupIsSweptByTheNextRun) {
  KTEST_REQUIRE_BINARIES();
  if (landlock_abi() < 1) GTEST_SKIP() << "no Landlock: the fallback run that makes the cgroup cannot run";
  const std::string own = own_cgroup2_dir();
  if (own.empty() || access(own.c_str(), W_OK) != 0)
    GTEST_SKIP() << "cgroup2 " << (own.empty() ? "is not mounted" : own + " is not writable for this user")
                 << ": paddock makes no cgroup there, so none can be left";
  World w;
  RunOpts o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  Started s = start({paddock_bin(), "run", "--", "/bin/sh", "-c", "echo STARTED; exec " + w.probe + " sleep 60"}, o);
  ASSERT_TRUE(s.wait_for_out("STARTED", 60s)) << "the run did not start";
  auto left = cgroups_of(own, s.pid());
  ASSERT_FALSE(left.empty()) << "the fallback run made no cgroup2 cgroup in " << own << ": nothing to test";
  kill(s.pid(), SIGKILL);
  s.finish(30s);
  // Its init dies of its parent's death and takes the command along: the cgroup empties.
  for (int i = 0; i < 300 && !read_file(left[0] + "/cgroup.procs").empty(); ++i) std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(read_file(left[0] + "/cgroup.procs").empty()) << "processes stayed in " << left[0];
  ASSERT_TRUE(exists(left[0])) << "already gone: nothing showed the sweep";
  // The next run, an ordinary one: with namespaces where they work, which makes no cgroup2 cgroup here.
  Proc next = w.paddock({"run", "--", "/bin/true"});
  ASSERT_EQ(next.code, 0) << describe(next);
  for (const std::string& d : left) EXPECT_FALSE(exists(d)) << d << " was left by a killed paddock and not swept";
}

}  // namespace
}  // namespace ktest
