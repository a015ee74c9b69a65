// Engine behaviours the lead added late: the run report's counts, the hint for a command the
// sandbox cannot see, finite default tmpfs sizes. Real sandboxes, root and unprivileged.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "helpers/test_util.h"

namespace ktest {
namespace {

TEST(CoreEngine, ReportCountsOutputAndProcesses) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string report = w.project + "/run.json";
  auto r = w.paddock({"run", "--report", report, "--", "/bin/sh", "-c", "echo hi; /bin/true & /bin/true & wait"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "hi")) << "output is still relayed: " << describe(r);
  auto j = nlohmann::json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << read_file(report);
  EXPECT_EQ(j["usage"]["stdout_bytes"], 3) << j.dump(2);
  // sh plus the two children, counted from the sandbox's own pid namespace.
  EXPECT_GE(j["usage"]["processes_started"].get<int>(), 3) << j.dump(2);
}

// The run ends when the init reports (it kills and reaps the rest first), without waiting for
// the init's own exit; the tree's CPU time and peak memory still reach the report.
TEST(CoreEngine, ReportHasTheTreesCpuAndPeakMemory) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string report = w.project + "/run.json";
  // The shell holds a 40 MB command substitution; the loop burns a little CPU.
  auto r = w.paddock({"run", "--report", report, "--", "/bin/sh", "-c",
                      "x=$(head -c 40000000 /dev/zero | tr '\\0' a); i=0; while [ $i -lt 20000 ]; do "
                      "i=$((i+1)); done; echo ${#x}"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "40000000")) << describe(r);
  auto j = nlohmann::json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << read_file(report);
  EXPECT_GE(j["usage"]["peak_memory_bytes"].get<std::uint64_t>(), 40000000ull) << j.dump(2);
  EXPECT_LT(j["usage"]["peak_memory_bytes"].get<std::uint64_t>(), 1ull << 30) << j.dump(2);
  EXPECT_GT(j["usage"]["user_cpu_s"].get<double>() + j["usage"]["sys_cpu_s"].get<double>(), 0.0) << j.dump(2);
}

TEST(CoreEngine, CommandOnlyOnHiddenPathIsNamedWithTheFlag) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string bin = w.home + "/bin";
  make_dirs(bin);
  write_file(bin + "/only-on-host-tool", "#!/bin/sh\necho ran\n", 0755);
  RunOpts o = w.opts();
  o.env["PATH"] = bin + ":/usr/bin:/bin";
  auto r = w.paddock({"run", "--env", "PATH", "--", "only-on-host-tool"}, o);
  EXPECT_EQ(r.code, 127) << describe(r);
  EXPECT_TRUE(contains(r.err, "the sandbox cannot see it")) << describe(r);
  EXPECT_TRUE(contains(r.err, "--read " + bin + "/only-on-host-tool")) << describe(r);
}

TEST(CoreEngine, PathLookupPrefersWhatTheSandboxCanSee) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string bin = w.home + "/bin";
  make_dirs(bin);
  write_file(bin + "/true", "#!/bin/sh\nexit 7\n", 0755);  // hidden: under the fresh HOME
  RunOpts o = w.opts();
  o.env["PATH"] = bin + ":/usr/bin:/bin";
  auto r = w.paddock({"run", "--env", "PATH", "--", "true"}, o);
  EXPECT_EQ(r.code, 0) << "the visible /usr/bin/true runs: " << describe(r);
}

TEST(CoreEngine, DefaultTmpfsSizesAreFinite) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto r = w.sh("for d in /tmp \"$HOME\" /dev/shm; do df -B1 --output=size \"$d\" | tail -n1; done");
  ASSERT_EQ(r.code, 0) << describe(r);
  std::istringstream in(r.out);
  unsigned long long size = 0;
  int n = 0;
  while (in >> size) {
    ++n;
    EXPECT_GT(size, 0u);
    EXPECT_LE(size, 8ull << 30) << "a tmpfs larger than 8 GiB by default: " << r.out;
  }
  EXPECT_EQ(n, 3) << describe(r);
}

}  // namespace
}  // namespace ktest
