// Prestarted namespaces (paddock::prestart_namespaces): the sandbox joins a user and network
// namespace made ahead of time and must be exactly as isolated as one that made its own.
// Library calls, real sandboxes, root and unprivileged.
#include <gtest/gtest.h>
#include <limits.h>
#include <unistd.h>

#include "helpers/test_util.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace ktest {
namespace {

struct Prestarted : ::testing::Test {
  void SetUp() override {
    KTEST_REQUIRE_BINARIES();
    if (!user_namespaces_work()) GTEST_SKIP() << "user namespaces unavailable here: nothing to prestart";
  }

  paddock::Result<paddock::RunResult> run(const World& w, const std::vector<std::string>& argv,
                                          std::shared_ptr<paddock::Prestart> pre, bool host_net = false) {
    auto ctx = paddock::HostContext::from_process();
    EXPECT_TRUE(ctx.ok());
    ctx->cwd = w.project;
    ctx->home = w.home;
    paddock::PolicyBuilder b(*ctx);
    if (host_net) b.network(paddock::NetMode::Host);
    auto policy = b.build();
    EXPECT_TRUE(policy.ok()) << policy.error().describe();
    paddock::RunOptions o;
    o.argv = argv;
    o.prestart = std::move(pre);
    return paddock::run_capture(*policy, o);
  }

  static std::string host_ns(const char* which) {
    char buf[PATH_MAX] = {};
    std::string p = std::string("/proc/self/ns/") + which;
    ssize_t n = readlink(p.c_str(), buf, sizeof(buf) - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  }
};

TEST_F(Prestarted, SandboxIsAsIsolatedAsWithoutIt) {
  World w;
  const std::string script =
      "readlink /proc/self/ns/net /proc/self/ns/user /proc/self/ns/mnt /proc/self/ns/pid; id -u; id -g; "
      "hostname; cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '; ls /proc | grep -c '^[0-9]'; "
      "cat " + w.ssh_key + " 2>&1 || true";
  auto pre = paddock::prestart_namespaces();
  ASSERT_NE(pre, nullptr);
  auto with = run(w, {"/bin/sh", "-c", script}, pre);
  ASSERT_TRUE(with.ok()) << with.error().describe();
  ASSERT_EQ(with->exit_code, 0) << with->failure_message() << with->stderr_data;
  auto without = run(w, {"/bin/sh", "-c", script}, nullptr);
  ASSERT_TRUE(without.ok()) << without.error().describe();

  auto a = split_lines(with->stdout_data);
  auto b = split_lines(without->stdout_data);
  ASSERT_GE(a.size(), 9u) << with->stdout_data;
  ASSERT_EQ(a.size(), b.size()) << with->stdout_data << "---\n" << without->stdout_data;
  // Own namespaces, none of them the host's.
  EXPECT_NE(a[0], host_ns("net"));
  EXPECT_NE(a[1], host_ns("user"));
  EXPECT_NE(a[2], host_ns("mnt"));
  EXPECT_NE(a[3], host_ns("pid"));
  // The same identity, hostname, interfaces (lo only), process view and secrets as without.
  for (std::size_t i = 4; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "line " << i;
  EXPECT_EQ(a[4], std::to_string(getuid()));
  EXPECT_EQ(a[5], std::to_string(getgid()));
  EXPECT_EQ(a[7], "lo");
  EXPECT_FALSE(contains(with->stdout_data, World::kSecret));
}

TEST_F(Prestarted, LoopbackIsUpAndPrivate) {
  World w;
  // Connecting to a closed port on the sandbox's own loopback is refused (lo is up); a down
  // interface would say "network unreachable".
  auto r = run(w, {w.probe, "connect-tcp", "127.0.0.1", "9"}, paddock::prestart_namespaces());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(contains(r->stdout_data, "ECONNREFUSED")) << r->stdout_data << r->stderr_data;
}

TEST_F(Prestarted, HostNetworkRunDropsItAndSharesTheHostNetwork) {
  World w;
  auto r = run(w, {"/bin/sh", "-c", "readlink /proc/self/ns/net"}, paddock::prestart_namespaces(), true);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->stdout_data, host_ns("net") + "\n");
}

TEST_F(Prestarted, UsedOnceThenRunsMakeTheirOwn) {
  World w;
  auto pre = paddock::prestart_namespaces();
  auto first = run(w, {"/bin/sh", "-c", "readlink /proc/self/ns/net"}, pre);
  auto second = run(w, {"/bin/sh", "-c", "readlink /proc/self/ns/net"}, pre);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->exit_code, 0) << first->stderr_data;
  EXPECT_EQ(second->exit_code, 0) << second->stderr_data;
  EXPECT_NE(first->stdout_data, second->stdout_data) << "two runs shared a network namespace";
}

}  // namespace
}  // namespace ktest
