// Resource control without the engine: layouts parsed from sample text; real cgroups (as root)
// with a forked child that joins through the attach fds, applies the rlimits, and then hogs
// memory, forks without end or spins; the rlimit fallbacks on an empty layout.
#include "engine/resources.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "engine/cgroup_dir.h"
#include "engine/cgroup_layout.h"
#include "sys/raw_io.h"

namespace paddock::engine {
namespace {

constexpr const char kHybridMountinfo[] =
    "25 30 0:23 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755\n"
    "26 25 0:24 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw\n"
    "27 25 0:25 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n"
    "28 25 0:26 / /sys/fs/cgroup/pids rw,nosuid - cgroup cgroup rw,pids\n"
    "29 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
    "30 25 0:28 / /sys/fs/cgroup/systemd rw,nosuid - cgroup cgroup rw,xattr,name=systemd\n";
constexpr const char kHybridCgroup[] =
    "9:name=systemd:/user.slice\n"
    "4:memory:/process_api/abc\n"
    "3:pids:/\n"
    "2:cpu,cpuacct:/user.slice\n"
    "0::/\n";

TEST(CgroupLayout, Hybrid) {
  CgroupLayout l = parse_cgroup_layout(kHybridMountinfo, kHybridCgroup);
  EXPECT_EQ(l.v2_own_dir, "/sys/fs/cgroup/unified");
  EXPECT_FALSE(l.v2_is_unified);
  EXPECT_EQ(l.v1_own_dir.at("memory"), "/sys/fs/cgroup/memory/process_api/abc");
  EXPECT_EQ(l.v1_own_dir.at("pids"), "/sys/fs/cgroup/pids");
  EXPECT_EQ(l.v1_own_dir.at("cpu"), "/sys/fs/cgroup/cpu,cpuacct/user.slice");
  EXPECT_EQ(l.v1_own_dir.at("cpuacct"), "/sys/fs/cgroup/cpu,cpuacct/user.slice");
  EXPECT_EQ(l.v1_own_dir.count("name=systemd"), 0u);
  EXPECT_EQ(l.v1_own_dir.count("systemd"), 0u);
}

TEST(CgroupLayout, UnifiedAndContainerRoot) {
  CgroupLayout l = parse_cgroup_layout(
      "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n",
      "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n");
  EXPECT_TRUE(l.v2_is_unified);
  EXPECT_EQ(l.v2_own_dir,
            "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope");
  EXPECT_TRUE(l.v1_own_dir.empty());
  // A container whose cgroup mount root is its own cgroup.
  CgroupLayout c = parse_cgroup_layout(
      "40 1 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "0::/docker/abc\n");
  EXPECT_EQ(c.v2_own_dir, "/sys/fs/cgroup");
  // Escaped spaces in a mount point.
  CgroupLayout e = parse_cgroup_layout(
      "40 1 0:26 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw\n", "0::/a\n");
  EXPECT_EQ(e.v2_own_dir, "/mnt/my cg/a");
}

TEST(CgroupLayout, NoCgroups) {
  CgroupLayout l = parse_cgroup_layout("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n", "0::/\n");
  EXPECT_TRUE(l.v2_own_dir.empty());
  EXPECT_TRUE(l.v1_own_dir.empty());
  EXPECT_EQ(l.describe(), "no cgroups mounted");
}

// ---- rlimit fallbacks: an empty layout behaves like a host with no usable cgroup ----

const LimitReport* find(const std::vector<LimitReport>& v, const std::string& name) {
  for (const LimitReport& r : v)
    if (r.name == name) return &r;
  return nullptr;
}

// After finish(), the report line `name` says what was asked for and how it was enforced.
void expect_report(ResourceControl& rc, const std::string& name, const std::string& requested,
                   const std::string& enforced_by, bool weaker) {
  RunResult res;
  rc.finish(res);
  const LimitReport* r = find(res.limits, name);
  ASSERT_NE(r, nullptr) << name;
  EXPECT_EQ(r->requested, requested) << name;
  EXPECT_EQ(r->enforced_by, enforced_by) << name;
  EXPECT_EQ(r->weaker, weaker) << name;
}

bool has_rlimit(const ResourceControl& rc, int res, rlim_t value) {
  for (const RlimitSpec& r : rc.rlimits())
    if (r.resource == res && r.value.rlim_cur == value && r.value.rlim_max == value) return true;
  return false;
}

// No limits at all, not even the built-in process ceiling (tested on its own below).
Limits bare_limits() {
  Limits l;
  l.pids_ceiling.reset();
  return l;
}

TEST(ResourceFallback, CoreDumpsOffByDefault) {
  auto rc = create_resource_control(bare_limits(), CgroupLayout{}, {});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  EXPECT_TRUE(has_rlimit(**rc, RLIMIT_CORE, 0));
  EXPECT_TRUE((*rc)->attach_fds().empty());
  EXPECT_TRUE((*rc)->warnings().empty());
  Limits on = bare_limits();
  on.core_dumps = true;
  auto rc2 = create_resource_control(on, CgroupLayout{}, {});
  ASSERT_TRUE(rc2.ok());
  for (const RlimitSpec& r : (*rc2)->rlimits()) EXPECT_NE(r.resource, RLIMIT_CORE);
}

TEST(ResourceFallback, RefusalNamesASystemdScopeWhereAUserManagerIsThere) {
  Limits l = bare_limits();
  l.cpu = 1;
  const char* saved = std::getenv("XDG_RUNTIME_DIR");
  const std::string keep = saved ? saved : "";
  char tmpl[] = "/tmp/paddock-rt-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  setenv("XDG_RUNTIME_DIR", tmpl, 1);
  auto without = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_FALSE(without.ok());
  EXPECT_EQ(without.error().hint.find("systemd-run"), std::string::npos) << without.error().hint;
  std::ofstream(std::string(tmpl) + "/bus") << "";  // stands in for the user bus socket
  auto with = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_FALSE(with.ok());
  if (access("/usr/bin/systemd-run", X_OK) == 0 || access("/bin/systemd-run", X_OK) == 0) {
    EXPECT_NE(with.error().hint.find("systemd-run --user -p Delegate=yes --scope"), std::string::npos)
        << with.error().hint;
  } else {
    EXPECT_EQ(with.error().hint.find("systemd-run"), std::string::npos) << with.error().hint;
  }
  unlink((std::string(tmpl) + "/bus").c_str());
  rmdir(tmpl);
  if (saved) setenv("XDG_RUNTIME_DIR", keep.c_str(), 1);
  else unsetenv("XDG_RUNTIME_DIR");
}

TEST(ResourceFallback, CpuWithoutCgroupIsRefusedUnlessBestEffort) {
  Limits l = bare_limits();
  l.cpu = 1.5;
  auto rc = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_FALSE(rc.ok());
  EXPECT_NE(rc.error().message.find("cannot enforce cpu 1.5"), std::string::npos)
      << rc.error().message;
  EXPECT_NE(rc.error().hint.find("--best-effort-limits"), std::string::npos);
  l.best_effort = true;
  auto be = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_TRUE(be.ok());
  ASSERT_EQ((*be)->warnings().size(), 1u);
  EXPECT_EQ((*be)->warnings()[0], "cpu 1.5: not enforced (no cgroup)");
  RunResult res;
  (*be)->finish(res);
  const LimitReport* cpu = find(res.limits, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->enforced_by, "not enforced");
  EXPECT_EQ(res.warnings.size(), 1u);
}

TEST(ResourceFallback, MemoryFallsBackToAddressSpace) {
  Limits l = bare_limits();
  l.memory_bytes = 256ull << 20;
  auto rc = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  EXPECT_TRUE(has_rlimit(**rc, RLIMIT_DATA, 256ull << 20));
  ASSERT_EQ((*rc)->warnings().size(), 1u);
  EXPECT_NE((*rc)->warnings()[0].find("RLIMIT_DATA"), std::string::npos);
  expect_report(**rc, "memory", "256M", "rlimit RLIMIT_DATA", true);
}

TEST(ResourceFallback, PidsInAUserNamespaceUseNproc) {
  Limits l = bare_limits();
  l.pids = 64;
  ResourceOptions o;
  o.new_user_namespace = true;
  auto rc = create_resource_control(l, CgroupLayout{}, o);
  if (geteuid() == 0) {
    EXPECT_FALSE(rc.ok()) << "RLIMIT_NPROC does not bind root: the pids limit must be refused";
    return;
  }
  ASSERT_TRUE(rc.ok());
  EXPECT_TRUE(has_rlimit(**rc, RLIMIT_NPROC, 64));
}

TEST(ResourceFallback, PidsWithoutUserNamespace) {
  Limits l = bare_limits();
  l.pids = 64;
  auto rc = create_resource_control(l, CgroupLayout{}, {});
  if (geteuid() == 0) {
    // RLIMIT_NPROC does not bind root: nothing would enforce it.
    ASSERT_FALSE(rc.ok());
    EXPECT_NE(rc.error().message.find("pids 64"), std::string::npos);
  } else {
    ASSERT_TRUE(rc.ok());
    bool found = false;
    for (const RlimitSpec& r : (*rc)->rlimits())
      if (r.resource == RLIMIT_NPROC) found = r.value.rlim_cur > 64;  // existing tasks added
    EXPECT_TRUE(found);
  }
}

// The built-in process ceiling (Limits::pids_ceiling, set unless --pids says otherwise): the
// sandbox's own pid_max where the kernel has one per pid namespace, else RLIMIT_NPROC where it
// binds, else a pids cgroup, else a warning; never a refusal.
TEST(ProcessCeiling, PidNamespaceGetsPidMax) {
  ResourceOptions o;
  o.new_user_namespace = o.new_pid_namespace = o.pid_namespace_pid_max = true;
  auto rc = create_resource_control(Limits{}, CgroupLayout{}, o);
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  EXPECT_EQ((*rc)->pid_max(), kDefaultPidsCeiling + 1);
  EXPECT_TRUE((*rc)->attach_fds().empty()) << "no cgroup for the ceiling";
  EXPECT_TRUE((*rc)->warnings().empty());
  expect_report(**rc, "pids-ceiling", "4096 (built-in)", "pid namespace pid_max", false);
}

TEST(ProcessCeiling, WithoutPidMaxFallsBackAndNeverRefuses) {
  ResourceOptions o;
  o.new_user_namespace = o.new_pid_namespace = true;  // but an older kernel: no per-ns pid_max
  auto rc = create_resource_control(Limits{}, CgroupLayout{}, o);
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  EXPECT_EQ((*rc)->pid_max(), 0u);
  RunResult res;
  (*rc)->finish(res);
  const LimitReport* c = find(res.limits, "pids-ceiling");
  ASSERT_NE(c, nullptr);
  if (geteuid() == 0) {
    // No cgroup in an empty layout, and RLIMIT_NPROC does not bind root: said, not refused.
    EXPECT_EQ(c->enforced_by, "not enforced");
    ASSERT_EQ(res.warnings.size(), 1u);
    EXPECT_NE(res.warnings[0].find("ceiling of 4096 processes is not enforced"), std::string::npos);
  } else {
    EXPECT_EQ(c->enforced_by, "rlimit RLIMIT_NPROC");
    EXPECT_TRUE(has_rlimit(**rc, RLIMIT_NPROC, kDefaultPidsCeiling));
  }
}

TEST(ProcessCeiling, AnExactLimitOrUnlimitedReplacesIt) {
  ResourceOptions o;
  o.new_user_namespace = o.new_pid_namespace = o.pid_namespace_pid_max = true;
  Limits none;
  none.pids_ceiling.reset();
  auto rc = create_resource_control(none, CgroupLayout{}, o);
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ((*rc)->pid_max(), 0u);
  RunResult res;
  (*rc)->finish(res);
  EXPECT_EQ(find(res.limits, "pids-ceiling"), nullptr);

  if (geteuid() != 0) {
    Limits exact;
    exact.pids = 64;
    auto rc2 = create_resource_control(exact, CgroupLayout{}, o);
    ASSERT_TRUE(rc2.ok());
    EXPECT_EQ((*rc2)->pid_max(), 0u) << "--pids is exact: not the pid_max approximation";
    RunResult res2;
    (*rc2)->finish(res2);
    EXPECT_EQ(find(res2.limits, "pids-ceiling"), nullptr);
    EXPECT_NE(find(res2.limits, "pids"), nullptr);
  }

  Limits tiny;
  tiny.pids_ceiling = 100;
  auto bad = create_resource_control(tiny, CgroupLayout{}, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("process ceiling 100"), std::string::npos);
}

TEST(ResourceFallback, RlimitsForFilesAndReports) {
  Limits l = bare_limits();
  l.max_file_size_bytes = 1ull << 30;
  l.max_open_files = 256;
  l.timeout = std::chrono::minutes(30);
  l.tmp_size_bytes = 512ull << 20;
  ResourceOptions o;
  o.new_pid_namespace = true;
  auto rc = create_resource_control(l, CgroupLayout{}, o);
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  EXPECT_TRUE(has_rlimit(**rc, RLIMIT_FSIZE, 1ull << 30));
  EXPECT_TRUE(has_rlimit(**rc, RLIMIT_NOFILE, 256));
  RunResult res;
  res.timed_out = true;
  res.status = RunResult::Status::Signaled;
  res.signal = SIGXFSZ;
  (*rc)->finish(res);
  ASSERT_NE(find(res.limits, "timeout"), nullptr);
  EXPECT_EQ(find(res.limits, "timeout")->requested, "30m");
  EXPECT_TRUE(find(res.limits, "timeout")->hit);
  EXPECT_EQ(find(res.limits, "tmp-size")->enforced_by, "tmpfs size");
  EXPECT_TRUE(find(res.limits, "max-file-size")->hit);
  EXPECT_FALSE(find(res.limits, "max-open-files")->hit);
  EXPECT_EQ(find(res.limits, "core-dumps")->enforced_by, "rlimit RLIMIT_CORE");
}

TEST(ResourceFallback, OpenFilesAboveHardLimitIsRefused) {
  struct rlimit cur{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &cur), 0);
  if (cur.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "RLIMIT_NOFILE hard limit is unlimited";
  Limits l = bare_limits();
  l.max_open_files = cur.rlim_max + 1;
  auto rc = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_FALSE(rc.ok());
  EXPECT_NE(rc.error().message.find("above this process's hard limit"), std::string::npos);
}

TEST(ResourceFallback, BadValues) {
  Limits l = bare_limits();
  l.cpu = 0;
  EXPECT_FALSE(create_resource_control(l, CgroupLayout{}, {}).ok());
  l.cpu = -1;
  EXPECT_FALSE(create_resource_control(l, CgroupLayout{}, {}).ok());
  Limits m = bare_limits();
  m.memory_bytes = 4096;
  auto rc = create_resource_control(m, CgroupLayout{}, {});
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error().message, "memory limit 4K is too small to start anything (minimum 1M)");
}

// ---- real cgroups ----

// Forks up to `max` children that wait (until the kernel refuses), then kills and reaps them;
// returns how many it got.
int fork_and_hold(int max) {
  int started = 0;
  std::vector<pid_t> kids;
  for (int i = 0; i < max; ++i) {
    pid_t p = fork();
    if (p < 0) break;
    if (p == 0) {
      pause();
      _exit(0);
    }
    kids.push_back(p);
    ++started;
  }
  for (pid_t k : kids) kill(k, SIGKILL);
  for (pid_t k : kids) waitpid(k, nullptr, 0);
  return started;
}

// Forks a child that joins the run's cgroups and applies its rlimits the way the engine's child
// does, then runs `body`; its return value is the exit code. Returns the wait status.
int run_child(ResourceControl& rc, const std::function<int()>& body,
              std::chrono::milliseconds kill_after = std::chrono::milliseconds(0)) {
  std::vector<int> fds = rc.attach_fds();
  std::vector<RlimitSpec> limits = rc.rlimits();
  pid_t pid = fork();
  if (pid == 0) {
    for (int fd : fds)
      if (!sys::write_all(fd, "0", 1)) _exit(120);
    for (const RlimitSpec& r : limits)
      if (setrlimit(r.resource, &r.value) < 0) _exit(121);
    _exit(body());
  }
  rc.started(pid);
  if (kill_after.count() > 0) {
    usleep(static_cast<useconds_t>(kill_after.count() * 1000));
    EXPECT_TRUE(rc.kill_all());
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

bool is_root() { return geteuid() == 0; }

std::vector<std::string> leftover_cgroups(const CgroupLayout& l) {
  std::vector<std::string> out;
  std::vector<std::string> dirs;
  if (!l.v2_own_dir.empty()) dirs.push_back(l.v2_own_dir);
  for (const auto& [c, d] : l.v1_own_dir) dirs.push_back(d);
  const std::string prefix = "paddock-" + std::to_string(getpid()) + "-";
  for (const std::string& d : dirs) {
    DIR* dir = opendir(d.c_str());
    if (!dir) continue;
    while (dirent* e = readdir(dir))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(d + "/" + e->d_name);
    closedir(dir);
  }
  return out;
}

class RealCgroups : public ::testing::Test {
 protected:
  void SetUp() override {
    auto l = discover_cgroup_layout();
    ASSERT_TRUE(l.ok());
    layout_ = *l;
  }
  // Skips unless the run would get `ctrl` from a cgroup on this host.
  bool need(const std::string& ctrl) {
    Limits probe = bare_limits();
    if (ctrl == "memory") probe.memory_bytes = 64ull << 20;
    if (ctrl == "pids") probe.pids = 100;
    if (ctrl == "cpu") probe.cpu = 1;
    auto rc = create_resource_control(probe, layout_, {});
    if (!rc.ok()) return false;
    RunResult r;
    (*rc)->finish(r);
    return !r.limits.empty() && r.limits[0].enforced_by.rfind("cgroup", 0) == 0;
  }
  CgroupLayout layout_;
};

#define REQUIRE_CGROUP(ctrl)                                                                  \
  do {                                                                                        \
    if (!need(ctrl))                                                                          \
      GTEST_SKIP() << "no writable cgroup with the " ctrl " controller here ("                \
                   << (is_root() ? "root" : "unprivileged") << "; " << layout_.describe() << ")"; \
  } while (0)

TEST_F(RealCgroups, MemoryHogIsKilledAndReportedAsOom) {
  REQUIRE_CGROUP("memory");
  Limits l = bare_limits();
  l.memory_bytes = 64ull << 20;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  int status = run_child(**rc, [] {
    const std::size_t total = 512ull << 20;
    char* p = static_cast<char*>(mmap(nullptr, total, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) return 3;
    for (std::size_t i = 0; i < total; i += 4096) p[i] = 1;
    return 0;  // survived: the limit did not hold
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  RunResult res;
  res.status = RunResult::Status::Signaled;
  res.signal = SIGKILL;
  (*rc)->finish(res);
  EXPECT_TRUE(res.oom);
  const LimitReport* m = find(res.limits, "memory");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->hit);
  EXPECT_FALSE(m->weaker) << "host swap without swap accounting?";
  EXPECT_GT(res.peak_memory_bytes, 32ull << 20);
  EXPECT_LE(res.peak_memory_bytes, (64ull << 20) + (1ull << 20));
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

TEST_F(RealCgroups, ModestProgramIsNotOom) {
  REQUIRE_CGROUP("memory");
  Limits l = bare_limits();
  l.memory_bytes = 64ull << 20;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok());
  int status = run_child(**rc, [] {
    std::vector<char> v(8u << 20, 1);
    return v[100] == 1 ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  RunResult res;
  (*rc)->finish(res);
  EXPECT_FALSE(res.oom);
  EXPECT_FALSE(find(res.limits, "memory")->hit);
  EXPECT_GE(res.peak_memory_bytes, 8u << 20);
}

TEST_F(RealCgroups, ForkBombIsContained) {
  REQUIRE_CGROUP("pids");
  Limits l = bare_limits();
  l.pids = 20;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  // Each process forks until the kernel says no; the first one reports how many it got.
  int status = run_child(**rc, [] {
    setpgid(0, 0);  // our own group, so the kill below stays inside the test child
    int started = 0;
    for (int i = 0; i < 200; ++i) {
      pid_t p = fork();
      if (p < 0) break;
      if (p == 0) {
        pause();
        _exit(0);
      }
      ++started;
    }
    kill(0, SIGKILL);  // our own process group: the forked sleepers, and us
    return started;
  });
  (void)status;
  RunResult res;
  (*rc)->finish(res);
  const LimitReport* p = find(res.limits, "pids");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->hit);
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

TEST_F(RealCgroups, ForkCountStopsAtTheLimit) {
  REQUIRE_CGROUP("pids");
  Limits l = bare_limits();
  l.pids = 10;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok());
  int status = run_child(**rc, [] {
    return fork_and_hold(50);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 9);  // 10 tasks: the child itself and 9 more
  RunResult res;
  (*rc)->finish(res);
}

// Without a pid namespace (the fallback mode) and as root, the process ceiling has no cheaper
// bound than a pids cgroup: it is exact there, and a refused fork is reported as hit.
TEST_F(RealCgroups, CeilingWithoutPidNamespaceIsAPidsCgroup) {
  REQUIRE_CGROUP("pids");
  Limits l = bare_limits();
  l.pids_ceiling = 512;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  EXPECT_EQ((*rc)->pid_max(), 0u);
  int status = run_child(**rc, [] {
    const int started = fork_and_hold(700);
    return started == 511 ? 0 : started < 511 ? 1 : 2;  // 512 tasks: the child and 511 more
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: stopped early, 2: the ceiling did not hold";
  RunResult res;
  (*rc)->finish(res);
  const LimitReport* c = find(res.limits, "pids-ceiling");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->enforced_by.rfind("cgroup", 0), 0u) << c->enforced_by;
  EXPECT_TRUE(c->hit);
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

// The engine's split: the child moves itself into the v1 hierarchies (self_attach_fds(), their
// "tasks" files), the parent moves it into cgroup2 (attach()) unless it was born there.
TEST_F(RealCgroups, ChildAndParentAttachTogether) {
  REQUIRE_CGROUP("pids");
  Limits l = bare_limits();
  l.pids = 5;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok());
  const std::vector<int> self = (*rc)->self_attach_fds();
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(go[1]);
    for (int fd : self)
      if (!sys::write_all(fd, "0", 1)) _exit(101);
    if (read(go[0], &c, 1) != 1) _exit(100);
    _exit(fork_and_hold(20));
  }
  close(go[0]);
  ASSERT_TRUE((*rc)->attach(pid).ok());
  ASSERT_EQ(write(go[1], "g", 1), 1);
  close(go[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);  // 5 tasks: the child and 4 more
  RunResult res;
  (*rc)->finish(res);
  EXPECT_TRUE(find(res.limits, "pids")->hit);
}

TEST_F(RealCgroups, PidNamespaceSkipsACgroup2WithoutTheWantedControllers) {
  // A hybrid host (this project's CI): memory comes from v1, and with a pid namespace the empty
  // cgroup2 cgroup would only cost a mkdir and an rmdir.
  REQUIRE_CGROUP("memory");
  if (layout_.v2_own_dir.empty()) GTEST_SKIP() << "no cgroup2 here (" << layout_.describe() << ")";
  std::string enabled = read_control(layout_.v2_own_dir + "/cgroup.subtree_control").value_or("");
  if (enabled.find("memory") != std::string::npos)
    GTEST_SKIP() << "cgroup2 has the memory controller here: it is used";
  Limits l = bare_limits();
  l.memory_bytes = 64ull << 20;
  ResourceOptions ns;
  ns.new_pid_namespace = true;
  auto with_ns = create_resource_control(l, layout_, ns);
  ASSERT_TRUE(with_ns.ok()) << with_ns.error().describe();
  EXPECT_EQ((*with_ns)->describe(), "cgroup v1 memory");
  EXPECT_EQ((*with_ns)->clone_into_fd(), -1);
  // Without a pid namespace the cgroup2 cgroup is what kills the whole tree: still made when
  // it can be.
  auto without = create_resource_control(l, layout_, {});
  ASSERT_TRUE(without.ok()) << without.error().describe();
  if (access(layout_.v2_own_dir.c_str(), W_OK) == 0) {
    EXPECT_EQ((*without)->describe().rfind("cgroup2", 0), 0u) << (*without)->describe();
  }
}

// The namespace init's way out (leave_fds()): once it wrote "0" into them, the run's v1 cgroups
// are empty and removed at once while it still lives (removing a busy cgroup kills its members).
TEST_F(RealCgroups, LeavingEmptiesTheRunsCgroupsWhileTheProcessLives) {
  REQUIRE_CGROUP("memory");
  Limits l = bare_limits();
  l.memory_bytes = 64ull << 20;
  ResourceOptions ns;
  ns.new_pid_namespace = true;
  auto rc = create_resource_control(l, layout_, ns);
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  const std::vector<int> join = (*rc)->self_attach_fds(), leave = (*rc)->leave_fds();
  if (join.empty()) GTEST_SKIP() << "no v1 cgroup here: " << (*rc)->describe();
  ASSERT_EQ(leave.size(), join.size());
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  if (pid == 0) {
    for (int fd : join)
      if (!sys::write_all(fd, "0", 1)) _exit(1);
    for (int fd : leave)
      if (!sys::write_all(fd, "0", 1)) _exit(2);
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_TRUE((*rc)->remove_cgroups().empty());
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << "the process was still in a run cgroup and was killed with it";
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

TEST_F(RealCgroups, NoLimitNoCgroup) {
  // Nothing needs a cgroup: none is made (they cost a mkdir and an rmdir per hierarchy).
  ResourceOptions o;
  o.new_pid_namespace = true;
  Limits l = bare_limits();
  l.timeout = std::chrono::seconds(5);
  auto rc = create_resource_control(l, layout_, o);
  ASSERT_TRUE(rc.ok());
  EXPECT_TRUE((*rc)->attach_fds().empty());
}

TEST_F(RealCgroups, KillAllReachesDaemonizedGrandchildren) {
  Limits l = bare_limits();
  l.timeout = std::chrono::seconds(5);  // without a pid namespace this asks for a cgroup to kill
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok());
  if ((*rc)->attach_fds().empty()) GTEST_SKIP() << "no writable cgroup (" << layout_.describe() << ")";
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  // The child double-forks a daemon that ignores SIGTERM and reports its pid, then waits.
  std::vector<int> fds = (*rc)->attach_fds();
  pid_t pid = fork();
  if (pid == 0) {
    for (int fd : fds)
      if (!sys::write_all(fd, "0", 1)) _exit(120);
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        signal(SIGTERM, SIG_IGN);
        pid_t me = getpid();
        sys::write_all(pipefd[1], &me, sizeof me);
        for (;;) pause();
      }
      _exit(0);
    }
    for (;;) pause();
  }
  close(pipefd[1]);
  pid_t daemon = 0;
  ASSERT_EQ(read(pipefd[0], &daemon, sizeof daemon), static_cast<ssize_t>(sizeof daemon));
  close(pipefd[0]);
  ASSERT_EQ(kill(daemon, 0), 0);
  EXPECT_TRUE((*rc)->kill_all());
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  // The daemon was reparented away from us; it must be gone (or a zombie awaiting its reaper).
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::string st;
    FILE* f = fopen(("/proc/" + std::to_string(daemon) + "/stat").c_str(), "r");
    if (!f) {
      gone = true;
      break;
    }
    char buf[512] = {};
    const std::size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    const char* close_paren = strrchr(buf, ')');
    if (close_paren && close_paren[2] == 'Z') gone = true;
    else usleep(5000);
  }
  EXPECT_TRUE(gone);
  RunResult res;
  (*rc)->finish(res);
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

TEST_F(RealCgroups, CpuSpinnerGetsItsShare) {
  REQUIRE_CGROUP("cpu");
  Limits l = bare_limits();
  l.cpu = 0.2;
  auto rc = create_resource_control(l, layout_, {});
  ASSERT_TRUE(rc.ok());
  const auto start = std::chrono::steady_clock::now();
  int status = run_child(**rc, [] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
    volatile unsigned long x = 0;
    while (std::chrono::steady_clock::now() < until) x = x + 1;
    return 0;
  });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(WIFEXITED(status));
  RunResult res;
  (*rc)->finish(res);
  const double cpu = res.user_cpu_s + res.sys_cpu_s;
  EXPECT_GT(cpu, 0.0) << "no CPU time measured";
  // Loose: 0.2 cores over ~1 s is ~0.2 s; anything near a full core means no throttling.
  EXPECT_LT(cpu, 0.2 * wall + 0.25) << "cpu " << cpu << "s over " << wall << "s wall";
  EXPECT_TRUE(find(res.limits, "cpu")->hit);
}

TEST_F(RealCgroups, NoLeaksAfterManyRuns) {
  Limits l = bare_limits();
  l.memory_bytes = 64ull << 20;
  l.pids = 64;
  l.best_effort = true;
  for (int i = 0; i < 200; ++i) {
    auto rc = create_resource_control(l, layout_, {});
    ASSERT_TRUE(rc.ok()) << rc.error().describe();
    int status = run_child(**rc, [] { return 0; });
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    RunResult res;
    (*rc)->finish(res);
    for (const std::string& w : res.warnings) ASSERT_EQ(w.find("could not remove"), std::string::npos) << w;
  }
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

TEST_F(RealCgroups, ErrorPathRemovesWhatWasCreated) {
  Limits l = bare_limits();
  l.memory_bytes = 64ull << 20;
  l.pids = 64;
  l.max_open_files = ~0ull;  // above any hard limit: refused after the cgroups were made
  struct rlimit cur{};
  getrlimit(RLIMIT_NOFILE, &cur);
  if (cur.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "RLIMIT_NOFILE hard limit is unlimited";
  auto rc = create_resource_control(l, layout_, {});
  EXPECT_FALSE(rc.ok());
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

TEST_F(RealCgroups, DestroyWithoutFinishCleansUp) {
  Limits l = bare_limits();
  l.pids = 64;
  l.best_effort = true;
  {
    auto rc = create_resource_control(l, layout_, {});
    ASSERT_TRUE(rc.ok());
    run_child(**rc, [] { return 0; });
  }
  EXPECT_TRUE(leftover_cgroups(layout_).empty());
}

// ---- the rlimit fallbacks, enforced for real (root and unprivileged) ----

TEST(RlimitFallback, DataCapStopsAHogButNotAReservation) {
  Limits l = bare_limits();
  l.memory_bytes = 128ull << 20;
  auto rc = create_resource_control(l, CgroupLayout{}, {});
  ASSERT_TRUE(rc.ok());
  int status = run_child(**rc, [] {
    // A reservation (what V8 and the JVM do at start-up) is fine; using it is not.
    void* r = mmap(nullptr, 4ull << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return 3;
    if (mprotect(r, 512ull << 20, PROT_READ | PROT_WRITE) == 0) return 4;
    void* p = mmap(nullptr, 512ull << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED || errno != ENOMEM) return 5;
    void* small = malloc(16u << 20);
    return small ? 7 : 6;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7) << "3: a PROT_NONE reservation failed; 4: committing 512M of it succeeded; "
                                       "5: a 512M mapping succeeded; 6: a 16M malloc failed, under a 128M RLIMIT_DATA";
}

// RLIMIT_NPROC does not bind root (a root run is refused it: PidsInAUserNamespaceUseNproc), so
// as root (how CI runs) the forked child first drops to nobody (65534) and works from there.
TEST(RlimitFallback, NprocInAUserNamespaceCountsOnlyTheSandbox) {
  Limits l = bare_limits();
  l.pids = 8;
  ResourceOptions o;
  o.new_user_namespace = true;
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(98);
    if (geteuid() == 0) _exit(98);
    auto rc = create_resource_control(l, CgroupLayout{}, o);
    if (!rc.ok()) _exit(97);
    std::vector<RlimitSpec> limits = (*rc)->rlimits();
    if (limits.empty()) _exit(96);
    if (unshare(CLONE_NEWUSER) != 0) _exit(99);
    for (const RlimitSpec& r : limits)
      if (setrlimit(r.resource, &r.value) < 0) _exit(121);
    _exit(fork_and_hold(40));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 99) GTEST_SKIP() << "no user namespaces here";
  ASSERT_NE(WEXITSTATUS(status), 98) << "could not drop from root to uid 65534";
  ASSERT_NE(WEXITSTATUS(status), 97) << "create_resource_control refused an unprivileged nproc limit";
  ASSERT_NE(WEXITSTATUS(status), 96) << "no RLIMIT_NPROC for a pids limit in a user namespace";
  // 8 tasks in the namespace: the child itself and 7 more, whatever else this uid runs.
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST_F(RealCgroups, StaleCgroupsOfDeadRunsAreSwept) {
  auto it = layout_.v1_own_dir.find("pids");
  std::string parent = it != layout_.v1_own_dir.end() ? it->second : layout_.v2_own_dir;
  if (parent.empty()) GTEST_SKIP() << "no cgroup hierarchy (" << layout_.describe() << ")";
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string stale = parent + "/paddock-" + std::to_string(dead) + "-deadbeef";
  if (mkdir(stale.c_str(), 0755) != 0) GTEST_SKIP() << "cannot create cgroups in " << parent;
  EXPECT_EQ(sweep_stale_cgroups(parent), 1);
  EXPECT_NE(access(stale.c_str(), F_OK), 0);
}

// cgroup2's "no internal processes" rule, with whatever controller this host's cgroup2 has (any
// controller follows the same rule): paddock alone in a delegated cgroup steps aside into a leaf
// and can then enable controllers for its runs; with another process there it cannot, and says so
// by EBUSY without leaving a leaf behind.
TEST_F(RealCgroups, AloneInItsCgroupItStepsAsideToEnableControllers) {
  if (!is_root()) GTEST_SKIP() << "needs root to make a cgroup2 cgroup to delegate";
  const std::string parent = layout_.v2_own_dir;
  if (parent.empty()) GTEST_SKIP() << "no cgroup2 here";
  std::ifstream cf(parent + "/cgroup.controllers");
  std::string ctrl;
  if (!(cf >> ctrl)) GTEST_SKIP() << "cgroup2 at " << parent << " has no controller to enable";
  const std::string before = read_control(parent + "/cgroup.subtree_control").value_or("");
  const bool was_enabled = before.find(ctrl) != std::string::npos;
  if (!was_enabled && enable_subtree_controllers(parent, "+" + ctrl) != 0)
    GTEST_SKIP() << "cannot enable " << ctrl << " in " << parent << " (this test's own cgroup)";
  const std::string deleg = parent + "/paddock-test-" + std::to_string(getpid()) + "-deleg";
  ASSERT_EQ(mkdir(deleg.c_str(), 0755), 0) << strerror(errno);

  // 1. Another process shares the cgroup: EBUSY, and no leaf is made.
  pid_t other = fork();
  if (other == 0) {
    if (!sys::write_all(::open((deleg + "/cgroup.procs").c_str(), O_WRONLY), "0", 1)) _exit(1);
    pause();
    _exit(0);
  }
  auto in_deleg = [&](pid_t p) {
    std::string all = read_control("/proc/" + std::to_string(p) + "/cgroup").value_or("");
    return all.find("-deleg") != std::string::npos;
  };
  for (int i = 0; i < 200 && !in_deleg(other); ++i) usleep(5000);
  auto child = [&](int expect) {
    pid_t c = fork();
    if (c == 0) {
      int fd = ::open((deleg + "/cgroup.procs").c_str(), O_WRONLY);
      if (fd < 0 || !sys::write_all(fd, "0", 1)) _exit(10);
      int err = enable_subtree_controllers(deleg, "+" + ctrl);
      if (err != expect) _exit(11);
      if (expect == 0) {
        // The next run of the same process finds itself in its leaf: runs still go beside it,
        // and no second leaf is made.
        auto l = discover_cgroup_layout();
        if (!l.ok() || cgroup2_run_parent(l->v2_own_dir, getpid()) != deleg) _exit(12);
        if (enable_subtree_controllers(deleg, "+" + ctrl) != 0) _exit(13);
      }
      _exit(0);
    }
    int st = 0;
    waitpid(c, &st, 0);
    return std::make_pair(c, st);
  };
  auto [c1, st1] = child(EBUSY);
  EXPECT_TRUE(WIFEXITED(st1) && WEXITSTATUS(st1) == 0) << st1;
  EXPECT_NE(access((deleg + "/paddock-" + std::to_string(c1) + "-self").c_str(), F_OK), 0);
  kill(other, SIGKILL);
  waitpid(other, nullptr, 0);

  // 2. Alone: it moves into its leaf and the controller is enabled for its runs.
  auto [c2, st2] = child(0);
  EXPECT_TRUE(WIFEXITED(st2) && WEXITSTATUS(st2) == 0) << st2;
  const std::string enabled = read_control(deleg + "/cgroup.subtree_control").value_or("");
  EXPECT_NE(enabled.find(ctrl), std::string::npos) << enabled;
  const std::string leaf = deleg + "/paddock-" + std::to_string(c2) + "-self";
  EXPECT_EQ(access(leaf.c_str(), F_OK), 0);

  EXPECT_NE(access((leaf + "/" + "paddock-" + std::to_string(c2) + "-self").c_str(), F_OK), 0);
  EXPECT_EQ(cgroup2_run_parent("/sys/fs/cgroup/a/paddock-42-self", 42), "/sys/fs/cgroup/a");
  EXPECT_EQ(cgroup2_run_parent("/sys/fs/cgroup/a/paddock-42-self", 43), "/sys/fs/cgroup/a/paddock-42-self");
  EXPECT_EQ(cgroup2_run_parent("/sys/fs/cgroup/a", 42), "/sys/fs/cgroup/a");

  // The leaf of a process that is gone is swept like a stale run cgroup.
  EXPECT_GE(sweep_stale_cgroups(deleg), 1);
  EXPECT_NE(access(leaf.c_str(), F_OK), 0);
  std::ofstream(deleg + "/cgroup.subtree_control") << "-" << ctrl;
  EXPECT_EQ(rmdir(deleg.c_str()), 0) << strerror(errno);
  if (!was_enabled) std::ofstream(parent + "/cgroup.subtree_control") << "-" << ctrl;
}

}  // namespace
}  // namespace paddock::engine
