// The filesystem plan, without the kernel: which mounts and Landlock rules a policy becomes.
#include "engine/plan_builder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "sys/syscalls.h"

namespace paddock::engine {
namespace {

// PREFIX is PATH or a directory above it.
bool is_prefix_dir(const std::string& prefix, const std::string& path) {
  return prefix == path || prefix == "/" ||
         (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 && path[prefix.size()] == '/');
}

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-plan-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    home_ = root_ + "/home";
    project_ = home_ + "/src/proj";
    ASSERT_EQ(system(("mkdir -p " + project_ + "/.git/hooks " + home_ + "/.ssh").c_str()), 0);
    std::ofstream(home_ + "/.ssh/id_ed25519") << "key";
    std::ofstream(project_ + "/.git/config") << "[core]";
  }
  void TearDown() override {
    if (std::system(("rm -rf " + root_).c_str()) != 0) ADD_FAILURE() << "could not remove " << root_;
  }

  Policy policy(bool allow_home) {
    HostContext ctx;
    ctx.cwd = project_;
    ctx.home = home_;
    ctx.user = "u";
    ctx.fs = real_fs();
    PolicyBuilder b(ctx);
    if (allow_home) b.allow(home_, Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"});
    auto p = b.build();
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().describe());
    return p.ok() ? p.value() : Policy{};
  }

  static const MountOp* find(const FsPlan& plan, const std::string& label, MountOp::Kind kind) {
    for (const auto& op : plan.mounts)
      if (op.label == label && op.kind == kind) return &op;
    return nullptr;
  }
  static std::size_t index_of(const FsPlan& plan, const MountOp* op) {
    return static_cast<std::size_t>(op - plan.mounts.data());
  }

  std::string root_, home_, project_;
};

TEST_F(PlanTest, DefaultPolicyMountsProjectRwSystemRoFreshHome) {
  FsPlanInputs in;
  in.landlock_abi = 6;
  auto plan = plan_filesystem(policy(false), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  const MountOp* proj = find(*plan, project_, MountOp::Kind::Bind);
  ASSERT_NE(proj, nullptr);
  EXPECT_FALSE(proj->readonly);
  EXPECT_TRUE(proj->check_inode);
  const MountOp* usr = find(*plan, "/usr", MountOp::Kind::Bind);
  ASSERT_NE(usr, nullptr);
  EXPECT_TRUE(usr->readonly);
  const MountOp* home = find(*plan, home_, MountOp::Kind::Tmpfs);
  ASSERT_NE(home, nullptr);
  // The project below HOME is mounted after (on top of) the fresh HOME.
  EXPECT_LT(index_of(*plan, home), index_of(*plan, proj));
  EXPECT_NE(find(*plan, "/tmp", MountOp::Kind::Tmpfs), nullptr);
  EXPECT_NE(find(*plan, "/proc", MountOp::Kind::Proc), nullptr);
  EXPECT_NE(find(*plan, "/proc/sys", MountOp::Kind::Protect), nullptr);
  EXPECT_NE(find(*plan, "/dev/null", MountOp::Kind::DevNode), nullptr);
  EXPECT_EQ(find(*plan, "/dev/sda", MountOp::Kind::DevNode), nullptr);
  // Existing hooks and git config in the writable project are re-bound read-only.
  EXPECT_NE(find(*plan, project_ + "/.git/hooks", MountOp::Kind::Protect), nullptr);
  EXPECT_NE(find(*plan, project_ + "/.git/config", MountOp::Kind::Protect), nullptr);
  // The root is sealed read-only last.
  EXPECT_EQ(plan->remount_ro_at_end.back(), "/");
}

// FIFOs: never on host-backed writable paths, and not in a private tmpfs that holds one (Landlock
// rights are inherited down the tree); a private tmpfs that holds none keeps them.
TEST_F(PlanTest, FifosOnlyWhereNothingHostBackedLiesBelow) {
  FsPlanInputs in;
  in.landlock_abi = 6;
  auto plan = plan_filesystem(policy(false), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  auto rights = [&](const std::string& path) -> std::uint64_t {
    for (const auto& r : plan->landlock.rules)
      if (r.path == path) return r.access;
    ADD_FAILURE() << "no Landlock rule for " << path;
    return 0;
  };
  EXPECT_EQ(rights(project_) & LANDLOCK_ACCESS_FS_MAKE_FIFO, 0u);
  EXPECT_EQ(rights(home_) & LANDLOCK_ACCESS_FS_MAKE_FIFO, 0u);  // the project lies below HOME
  // This test's HOME lies under /tmp, so /tmp holds the project too; a project elsewhere would
  // leave /tmp its FIFOs: the rule is decided by what lies below, nothing else.
  const bool project_under_tmp = project_.rfind("/tmp/", 0) == 0;
  EXPECT_EQ((rights("/tmp") & LANDLOCK_ACCESS_FS_MAKE_FIFO) == 0, project_under_tmp);
  EXPECT_NE(rights("/dev/shm") & LANDLOCK_ACCESS_FS_MAKE_FIFO, 0u);
  EXPECT_NE(rights(home_) & LANDLOCK_ACCESS_FS_MAKE_REG, 0u);
}

TEST_F(PlanTest, SensitivePathInsideAllowedHomeIsMaskedAfterTheBind) {
  FsPlanInputs in;
  in.landlock_abi = 6;
  auto plan = plan_filesystem(policy(true), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  const MountOp* home = find(*plan, home_, MountOp::Kind::Bind);
  const MountOp* ssh = find(*plan, home_ + "/.ssh", MountOp::Kind::MaskDir);
  ASSERT_NE(home, nullptr);
  ASSERT_NE(ssh, nullptr);
  EXPECT_LT(index_of(*plan, home), index_of(*plan, ssh));
  EXPECT_EQ(find(*plan, home_, MountOp::Kind::Tmpfs), nullptr);
  EXPECT_NE(std::find(plan->remount_ro_at_end.begin(), plan->remount_ro_at_end.end(), home_ + "/.ssh"),
            plan->remount_ro_at_end.end());
}

TEST_F(PlanTest, LandlockRightsFollowAccess) {
  EXPECT_EQ(landlock_access_for(Access::Read, 6) & LANDLOCK_ACCESS_FS_WRITE_FILE, 0u);
  EXPECT_NE(landlock_access_for(Access::Read, 6) & LANDLOCK_ACCESS_FS_EXECUTE, 0u);
  EXPECT_EQ(landlock_access_for(Access::Write, 6) & LANDLOCK_ACCESS_FS_READ_FILE, 0u);
  EXPECT_NE(landlock_access_for(Access::Write, 6) & LANDLOCK_ACCESS_FS_MAKE_REG, 0u);
  // Never device nodes.
  EXPECT_EQ(landlock_access_for(Access::ReadWrite, 6) & LANDLOCK_ACCESS_FS_MAKE_CHAR, 0u);
  EXPECT_EQ(landlock_access_for(Access::ReadWrite, 6) & LANDLOCK_ACCESS_FS_MAKE_FIFO, 0u);  // host-backed
  EXPECT_NE(landlock_access_for(Access::ReadWrite, 6) & LANDLOCK_ACCESS_FS_MAKE_SOCK, 0u);
  // Downgrade: ABI 1 knows neither REFER nor TRUNCATE.
  EXPECT_EQ(landlock_handled_fs(1) & (LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE), 0u);
  EXPECT_NE(landlock_handled_fs(3) & LANDLOCK_ACCESS_FS_TRUNCATE, 0u);
  EXPECT_NE(landlock_handled_fs(5) & LANDLOCK_ACCESS_FS_IOCTL_DEV, 0u);
  EXPECT_EQ(landlock_handled_fs(0), 0u);
}

TEST_F(PlanTest, FallbackSplitsRuleAroundSensitivePath) {
  FsPlanInputs in;
  in.landlock_abi = 6;
  in.namespaces = false;
  in.fallback_home = root_ + "/fh";
  auto plan = plan_filesystem(policy(true), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  EXPECT_TRUE(plan->mounts.empty());
  bool home_whole = false, ssh = false, src = false;
  for (const auto& r : plan->landlock.rules) {
    if (r.path == home_ && (r.access & LANDLOCK_ACCESS_FS_READ_FILE)) home_whole = true;
    if (r.path.rfind(home_ + "/.ssh", 0) == 0) ssh = true;
    if (r.path == home_ + "/src") src = true;
  }
  EXPECT_FALSE(home_whole) << "HOME must not be granted whole: it holds ~/.ssh";
  EXPECT_FALSE(ssh);
  EXPECT_TRUE(src);
}

// A rule on a parent of HOME: with namespaces HOME is a fresh tmpfs; in the fallback the real
// HOME must be hidden whole (the project inside it keeps its own rule).
TEST_F(PlanTest, FallbackHidesTheRealHomeUnderAnAllowedParent) {
  HostContext ctx;
  ctx.cwd = project_;
  ctx.home = home_;
  ctx.user = "u";
  ctx.fs = real_fs();
  PolicyBuilder b(ctx);
  b.allow(root_, Access::ReadWrite, {Origin::Kind::Flag, "--allow " + root_});
  auto pol = b.build();
  ASSERT_TRUE(pol.ok()) << pol.error().describe();
  FsPlanInputs in;
  in.landlock_abi = 6;
  in.namespaces = false;
  in.fallback_home = root_ + "/fh";
  auto plan = plan_filesystem(pol.value(), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  bool project = false;
  for (const auto& r : plan->landlock.rules) {
    const bool reads = (r.access & LANDLOCK_ACCESS_FS_READ_FILE) != 0;
    EXPECT_FALSE(reads && (r.path == root_ || r.path == home_ || r.path.rfind(home_ + "/.ssh", 0) == 0))
        << r.path << " is granted: it is, or holds, the real HOME";
    if (r.path == project_ && reads) project = true;
  }
  EXPECT_TRUE(project) << "the project keeps its own rule";
}

TEST_F(PlanTest, NoIsolationAtAllIsRefused) {
  FsPlanInputs in;
  in.landlock_abi = 0;
  in.namespaces = false;
  EXPECT_FALSE(plan_filesystem(policy(false), in).ok());
}

}  // namespace
}  // namespace paddock::engine

namespace paddock::engine {
namespace {

TEST_F(PlanTest, ExtraMountsAtTheirOwnPaths) {
  FsPlanInputs in;
  in.landlock_abi = 6;
  in.extra_mounts.push_back({"/workspace", "", Access::ReadWrite, 1 << 20});
  in.extra_mounts.push_back({"/project", project_, Access::Read, 0});
  auto plan = plan_filesystem(policy(false), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  const MountOp* ws = find(*plan, "/workspace", MountOp::Kind::Tmpfs);
  ASSERT_NE(ws, nullptr);
  EXPECT_NE(ws->data.find("size=1048576"), std::string::npos);
  const MountOp* pr = find(*plan, "/project", MountOp::Kind::Bind);
  ASSERT_NE(pr, nullptr);
  EXPECT_TRUE(pr->readonly);
  EXPECT_EQ(pr->src, std::string(kOldRoot) + project_);

  in.namespaces = false;
  EXPECT_FALSE(plan_filesystem(policy(false), in).ok()) << "own-path mounts need namespaces";
}

}  // namespace
}  // namespace paddock::engine

namespace paddock::engine {
namespace {

// Parents before children, each subtree whole: the string order would put /w/a-b between /w/a
// and /w/a/b.
TEST(PathOrder, ComponentWise) {
  EXPECT_TRUE(path_component_less("/a/b", "/a-b"));
  EXPECT_FALSE(path_component_less("/a-b", "/a/b"));
  EXPECT_TRUE(path_component_less("/a", "/a/b"));
  EXPECT_TRUE(path_component_less("/a", "/a-b"));
  EXPECT_TRUE(path_component_less("/a/z", "/a.b"));
  EXPECT_TRUE(path_component_less("/a/b", "/a/c"));
  EXPECT_FALSE(path_component_less("/a", "/a"));
  EXPECT_FALSE(path_component_less("/a/b", "/a"));
}

TEST_F(PlanTest, MountsAreOrderedComponentWise) {
  FsPlanInputs in;
  in.landlock_abi = 6;
  for (const char* p : {"/w/a-b", "/w/a/b", "/w/a"}) in.extra_mounts.push_back({p, "", Access::ReadWrite, 1 << 20});
  auto plan = plan_filesystem(policy(false), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  const MountOp* a = find(*plan, "/w/a", MountOp::Kind::Tmpfs);
  const MountOp* ab = find(*plan, "/w/a/b", MountOp::Kind::Tmpfs);
  const MountOp* dash = find(*plan, "/w/a-b", MountOp::Kind::Tmpfs);
  ASSERT_TRUE(a && ab && dash);
  EXPECT_LT(index_of(*plan, a), index_of(*plan, ab));
  EXPECT_LT(index_of(*plan, ab), index_of(*plan, dash)) << "/w/a's subtree is mounted whole before /w/a-b";
}

// Entries the fallback found with readdir may be gone when the child opens them (a tool's lock
// file): optional rules. The rule's own path stays as required as the policy says.
TEST_F(PlanTest, FallbackSplitEntriesAreOptional) {
  std::ofstream(home_ + "/transient.lock") << "x";
  FsPlanInputs in;
  in.landlock_abi = 6;
  in.namespaces = false;
  in.fallback_home = root_ + "/fh";
  auto plan = plan_filesystem(policy(true), in);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  bool entry = false, home = false;
  for (const auto& r : plan->landlock.rules) {
    if (r.path == home_ + "/transient.lock" || r.path == home_ + "/src") {
      entry = true;
      EXPECT_TRUE(r.optional) << r.path << " came from readdir: it may vanish before the child opens it";
    }
    if (r.path == home_) {
      home = true;
      EXPECT_FALSE(r.optional) << "the --allow rule itself is required";
    }
  }
  EXPECT_TRUE(entry);
  EXPECT_TRUE(home);
}

// A sensitive path deeper than the fallback splits: refused, never the subtree granted whole.
TEST_F(PlanTest, FallbackRefusesASensitivePathTooDeepToSplit) {
  std::string deep = home_;
  for (int i = 0; i < 10; ++i) deep += "/d" + std::to_string(i);
  ASSERT_EQ(system(("mkdir -p " + deep).c_str()), 0);
  std::ofstream(deep + "/secret") << "s";
  Policy pol = policy(true);
  pol.denied.push_back({deep + "/secret", "test secret"});
  FsPlanInputs in;
  in.landlock_abi = 6;
  in.namespaces = false;
  in.fallback_home = root_ + "/fh";
  auto plan = plan_filesystem(pol, in);
  ASSERT_FALSE(plan.ok()) << "granted: the secret " << deep << "/secret would be readable";
  EXPECT_NE(plan.error().describe().find(deep + "/secret"), std::string::npos) << plan.error().describe();
  // Within the depth it is split as before.
  std::string shallow = home_ + "/d0/d1/secret2";
  std::ofstream(shallow) << "s";
  Policy pol2 = policy(true);
  pol2.denied.push_back({shallow, "test secret"});
  auto plan2 = plan_filesystem(pol2, in);
  ASSERT_TRUE(plan2.ok()) << plan2.error().describe();
  for (const auto& r : plan2->landlock.rules)
    EXPECT_FALSE(r.path == shallow || (is_prefix_dir(r.path, shallow) && (r.access & LANDLOCK_ACCESS_FS_READ_FILE)))
        << r.path << " grants " << shallow;
}

// One decision for the network, read by the clone flags, --exec's unshare and the seccomp rule.
TEST(NetIsolation, OneDecisionForTheThreePaths) {
  for (bool ns : {true, false}) {
    NetIsolation host = net_isolation(NetMode::Host, ns);
    EXPECT_FALSE(host.new_netns || host.loopback_up || host.deny_inet_sockets) << "namespaces=" << ns;
    for (NetMode m : {NetMode::Off, NetMode::Filtered}) {
      NetIsolation n = net_isolation(m, ns);
      // Cut off one way or the other, always.
      EXPECT_TRUE(n.new_netns || n.deny_inet_sockets) << "namespaces=" << ns;
      EXPECT_EQ(n.new_netns, ns);
      EXPECT_EQ(n.loopback_up, ns);
      EXPECT_EQ(n.deny_inet_sockets, !ns);
    }
  }
}

}  // namespace
}  // namespace paddock::engine
