#include "engine/report.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace paddock {
namespace {

Policy small_policy() {
  Policy p;
  p.cwd = "/work";
  p.home = "/home/u";
  p.user = "u";
  p.profile = "default";
  p.limits.memory_bytes = 2ull << 30;
  return p;
}

TEST(RunReport, OomKill) {
  RunResult r;
  r.status = RunResult::Status::Signaled;
  r.signal = SIGKILL;
  r.oom = true;
  r.wall = std::chrono::milliseconds(1234);
  r.user_cpu_s = 0.5004;
  r.peak_memory_bytes = 2ull << 30;
  r.stdout_bytes = 10;
  r.isolation = "namespaces+landlock(6)+seccomp";
  r.limits.push_back({"memory", "2G", "cgroup v1", false, true});
  nlohmann::json j = run_report(r, small_policy(), {"npm", "test"});
  EXPECT_EQ(j["version"], "paddock.report/1");
  EXPECT_EQ(j["command"], nlohmann::json({"npm", "test"}));
  EXPECT_EQ(j["outcome"]["status"], "signaled");
  EXPECT_EQ(j["outcome"]["signal"], "SIGKILL");
  EXPECT_TRUE(j["outcome"]["exit_code"].is_null());
  EXPECT_EQ(j["outcome"]["shell_code"], 137);
  EXPECT_EQ(j["outcome"]["oom"], true);
  EXPECT_EQ(j["outcome"]["timed_out"], false);
  EXPECT_FALSE(j["outcome"].contains("setup"));
  ASSERT_EQ(j["limits"].size(), 1u);
  EXPECT_EQ(j["limits"][0]["name"], "memory");
  EXPECT_EQ(j["limits"][0]["requested"], "2G");
  EXPECT_EQ(j["limits"][0]["enforced_by"], "cgroup v1");
  EXPECT_EQ(j["limits"][0]["hit"], true);
  EXPECT_DOUBLE_EQ(j["usage"]["wall_s"].get<double>(), 1.234);
  EXPECT_DOUBLE_EQ(j["usage"]["user_cpu_s"].get<double>(), 0.5);
  EXPECT_EQ(j["usage"]["peak_memory_bytes"], 2ull << 30);
  EXPECT_EQ(j["usage"]["stdout_bytes"], 10);
  EXPECT_EQ(j["policy"]["limits"]["memory_bytes"], 2ull << 30);
  EXPECT_EQ(j["isolation"], "namespaces+landlock(6)+seccomp");
}

TEST(RunReport, ExitAndSetupFailure) {
  RunResult ok;
  ok.exit_code = 3;
  nlohmann::json j = run_report(ok, small_policy());
  EXPECT_FALSE(j.contains("command"));
  EXPECT_EQ(j["outcome"]["status"], "exited");
  EXPECT_EQ(j["outcome"]["exit_code"], 3);
  EXPECT_TRUE(j["outcome"]["signal"].is_null());
  EXPECT_TRUE(j["limits"].is_array());
  EXPECT_TRUE(j["warnings"].is_array());

  RunResult bad;
  bad.status = RunResult::Status::SetupFailed;
  bad.setup_step = "mount proc";
  bad.setup_errno = EPERM;
  nlohmann::json b = run_report(bad, small_policy());
  EXPECT_EQ(b["outcome"]["status"], "setup_failed");
  EXPECT_EQ(b["outcome"]["shell_code"], 125);
  EXPECT_EQ(b["outcome"]["setup"]["step"], "mount proc");
  EXPECT_EQ(b["outcome"]["setup"]["errno"], EPERM);
}

TEST(RunReport, KeysAreStable) {
  // The documented top-level and usage keys, no more, no fewer (docs/report.md).
  nlohmann::json j = run_report(RunResult{}, small_policy(), {"true"});
  std::vector<std::string> top;
  for (auto it = j.begin(); it != j.end(); ++it) top.push_back(it.key());
  EXPECT_EQ(top, (std::vector<std::string>{"check", "command", "denials", "isolation", "isolation_gaps", "left_behind", "limits",
                                           "outcome", "policy", "usage", "version", "warnings"}));
  std::vector<std::string> check;
  for (auto it = j["check"].begin(); it != j["check"].end(); ++it) check.push_back(it.key());
  EXPECT_EQ(check, (std::vector<std::string>{"directories_listed", "directories_unchanged"}));
  std::vector<std::string> usage;
  for (auto it = j["usage"].begin(); it != j["usage"].end(); ++it) usage.push_back(it.key());
  EXPECT_EQ(usage, (std::vector<std::string>{"peak_memory_bytes", "processes_started",
                                             "stderr_bytes", "stderr_truncated", "stdout_bytes",
                                             "stdout_truncated", "sys_cpu_s", "user_cpu_s",
                                             "wall_s"}));
}

TEST(WriteReportFile, AtomicReplace) {
  char dir[] = "/tmp/paddock-report-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/run.json";
  {
    std::ofstream old(path);
    old << "old";
  }
  nlohmann::json j = run_report(RunResult{}, small_policy());
  ASSERT_TRUE(write_report_file(path, j).ok());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(nlohmann::json::parse(ss.str())["version"], "paddock.report/1");
  EXPECT_EQ(ss.str().back(), '\n');
  // No temp file left behind.
  EXPECT_NE(access((path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
  auto bad = write_report_file(std::string(dir) + "/missing/run.json", j);
  EXPECT_FALSE(bad.ok());
  unlink(path.c_str());
  rmdir(dir);
}

TEST(RunReport, IsolationGapsListedWithNameAndConsequence) {
  RunResult r;
  r.isolation = "namespaces+landlock(6)+seccomp";
  EXPECT_EQ(run_report(r, small_policy(), {"true"})["isolation_gaps"], nlohmann::json::array());
  r.isolation = "landlock(6)+seccomp";
  r.isolation_gaps = fallback_gaps(small_policy(), Features{});
  nlohmann::json j = run_report(r, small_policy(), {"true"});
  ASSERT_EQ(j["isolation_gaps"].size(), r.isolation_gaps.size());
  EXPECT_EQ(j["isolation_gaps"][0]["name"], "no private /proc");
  EXPECT_EQ(j["isolation_gaps"][0]["consequence"], r.isolation_gaps[0].consequence);
}

}  // namespace
}  // namespace paddock
