#include "supervisor/denial_log.h"

#include <gtest/gtest.h>

#include <thread>

#include "supervisor/denial.h"

namespace paddock::supervisor {
namespace {

Denial syscall(const char* name, int pid = 0, const char* comm = "") {
  Denial d = from_syscall(name, "EPERM", "why");
  d.pid = pid;
  d.comm = comm;
  return d;
}

TEST(DenialLog, AggregatesByLayerWhatAndOpKeepingTheFirstProcessAndTime) {
  DenialLog log;
  Denial first = syscall("mount", 10, "sh");
  first.first_unix_ms = 1000;
  log.record(first);
  Denial second = syscall("mount", 11, "python3");
  second.first_unix_ms = 2000;
  log.record(second);
  log.record(syscall("bpf", 12, "x"));
  auto lines = log.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].what, "mount");
  EXPECT_EQ(lines[0].count, 2u);
  EXPECT_EQ(lines[0].pid, 10);
  EXPECT_EQ(lines[0].comm, "sh");
  EXPECT_EQ(lines[0].first_unix_ms, 1000);
  EXPECT_EQ(lines[1].what, "bpf");
  EXPECT_EQ(lines[1].count, 1u);
  EXPECT_GT(lines[1].first_unix_ms, 0);  // stamped when left 0
  // The same name at another layer is another line.
  Denial path = syscall("mount");
  path.layer = Denial::Layer::MountHidden;
  log.record(path);
  EXPECT_EQ(log.lines().size(), 3u);
}

TEST(DenialLog, ListenerSeesFirstAndEachPowerOfTwo) {
  DenialLog log;
  std::vector<std::uint64_t> seen;
  log.set_listener([&](const Denial& d) { seen.push_back(d.count); });
  for (int i = 0; i < 9; ++i) log.record(syscall("mount"));
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{1, 2, 4, 8}));
  Denial many = syscall("mount");
  many.count = 100;  // 109: crosses 16, 32, 64: reported once
  log.record(many);
  EXPECT_EQ(seen.back(), 109u);
  EXPECT_EQ(seen.size(), 5u);
}

TEST(DenialLog, BoundedPastTheCapInOneLinePerLayer) {
  DenialLog log(3);
  for (int i = 0; i < 10; ++i) log.record(syscall(("call" + std::to_string(i)).c_str()));
  Denial net = syscall("host");
  net.layer = Denial::Layer::Egress;
  log.record(net);
  auto lines = log.lines();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3].what, DenialLog::kOther);
  EXPECT_EQ(lines[3].layer, Denial::Layer::Seccomp);
  EXPECT_EQ(lines[3].count, 7u);
  EXPECT_EQ(lines[4].what, DenialLog::kOther);
  EXPECT_EQ(lines[4].layer, Denial::Layer::Egress);
}

TEST(DenialLog, CountsFromManyThreads) {
  DenialLog log;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) log.record(syscall("mount"));
    });
  for (auto& t : ts) t.join();
  ASSERT_EQ(log.lines().size(), 1u);
  EXPECT_EQ(log.lines()[0].count, 4000u);
}

}  // namespace
}  // namespace paddock::supervisor
