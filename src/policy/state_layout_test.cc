// paddock's own state (paddock/state.h: $XDG_STATE_HOME/paddock with the undo store, the jails
// wherever they are, root's /var/lib/paddock) is laid out once, masked under any rule and cannot
// be granted (issues 14, 27).
#include "paddock/state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "paddock/why.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

HostContext ctx_for(std::shared_ptr<FakeFs> fs, std::string state_home = {}, std::string jails_dir = {}) {
  HostContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.uid = 1000;
  ctx.gid = 1000;
  ctx.state = state_layout({ctx.uid, ctx.home, std::move(state_home), std::move(jails_dir)});
  ctx.fs = std::move(fs);
  return ctx;
}

bool denied(const Policy& p, const std::string& path) {
  return std::any_of(p.denied.begin(), p.denied.end(), [&](const DeniedPath& d) { return d.path == path; });
}

TEST(StateLayout, OneUsersState) {
  const StateLayout s = state_layout({1000, "/home/u/", {}, {}});
  EXPECT_EQ(s.user_dir, "/home/u/.local/state/paddock");
  EXPECT_EQ(s.undo_dir, "/home/u/.local/state/paddock/undo");
  EXPECT_EQ(s.git_objects_dir, "/home/u/.local/state/paddock/git-objects");
  EXPECT_EQ(s.jails_dir, "/home/u/.local/state/paddock/jails");
  EXPECT_EQ(s.system_dir, "");
  EXPECT_EQ(s.masked(), (std::vector<std::string>{"/home/u/.local/state/paddock"}));
  // XDG_STATE_HOME only when absolute.
  EXPECT_EQ(state_layout({1000, "/home/u", "/var/st/", {}}).user_dir, "/var/st/paddock");
  EXPECT_EQ(state_layout({1000, "/home/u", "rel/st", {}}).user_dir, "/home/u/.local/state/paddock");
}

TEST(StateLayout, RootsJailsAreSystemWide) {
  const StateLayout s = state_layout({0, "/root", {}, {}});
  EXPECT_EQ(s.user_dir, "/root/.local/state/paddock");
  EXPECT_EQ(s.jails_dir, "/var/lib/paddock/jails");
  EXPECT_EQ(s.system_dir, "/var/lib/paddock");
  EXPECT_EQ(s.masked(), (std::vector<std::string>{"/root/.local/state/paddock", "/var/lib/paddock"}));
}

// PADDOCK_JAILS_DIR moves the jail store: it is paddock's state wherever it goes.
TEST(StateLayout, AMovedJailStoreIsMaskedToo) {
  const StateLayout s = state_layout({1000, "/home/u", {}, "/data/j//jails/"});
  EXPECT_EQ(s.jails_dir, "/data/j/jails");
  EXPECT_EQ(s.masked(), (std::vector<std::string>{"/home/u/.local/state/paddock", "/data/j/jails"}));
  const StateLayout r = state_layout({0, "/root", {}, "/srv/jails"});
  EXPECT_EQ(r.masked(), (std::vector<std::string>{"/root/.local/state/paddock", "/var/lib/paddock", "/srv/jails"}));
  // Inside a masked directory already: nothing more to mask.
  EXPECT_EQ(state_layout({1000, "/home/u", {}, "/home/u/.local/state/paddock/j2"}).masked().size(), 1u);
  // Relative: no store (jail::Store::open refuses it), nothing to mask.
  const StateLayout rel = state_layout({1000, "/home/u", {}, "jails"});
  EXPECT_EQ(rel.jails_dir, "jails");
  EXPECT_EQ(rel.masked().size(), 1u);
}

TEST(StateLayout, HostModeDefaults) {
  EXPECT_EQ(host_agent_state_dir("pi"), "/var/lib/paddock/agents/pi");
  EXPECT_EQ(std::string(kHostManifest).rfind(std::string(kSystemStateDir) + "/", 0), 0u);
}

TEST(StateDir, MaskedUnderAllowHomeAndLocalState) {
  for (const char* grant : {"~", "~/.local", "~/.local/state"}) {
    auto fs = std::make_shared<FakeFs>();
    fs->dir("/home/u/proj").dir("/home/u/.local/state/paddock/undo");
    PolicyBuilder b(ctx_for(fs));
    b.no_system_defaults().allow(grant, Access::ReadWrite, {Origin::Kind::Flag, std::string("--allow ") + grant});
    auto p = b.build();
    ASSERT_TRUE(p) << p.error().describe();
    EXPECT_TRUE(denied(*p, "/home/u/.local/state/paddock")) << grant;
    Decision d = explain_path(*p, "/home/u/.local/state/paddock/undo/objects", Op::Read, *fs);
    EXPECT_FALSE(d.allowed) << grant;
    EXPECT_NE(d.reason.find("no rule can grant it"), std::string::npos) << d.reason;
    EXPECT_TRUE(d.suggestion.empty());
  }
}

TEST(StateDir, NamingItOrInsideItIsRefused) {
  for (const char* grant : {"~/.local/state/paddock", "~/.local/state/paddock/undo", "~/.local/state/paddock/jails/x"}) {
    auto fs = std::make_shared<FakeFs>();
    fs->dir("/home/u/proj").dir("/home/u/.local/state/paddock/undo").dir("/home/u/.local/state/paddock/jails/x");
    PolicyBuilder b(ctx_for(fs));
    b.no_system_defaults().allow(grant, Access::Read, {Origin::Kind::Flag, std::string("--read ") + grant});
    auto p = b.build();
    ASSERT_FALSE(p) << grant;
    EXPECT_NE(p.error().message.find("paddock's own state"), std::string::npos) << p.error().message;
  }
}

TEST(StateDir, ASymlinkToItIsRefusedToo) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/proj").dir("/home/u/.local/state/paddock/undo").symlink("/home/u/proj/st", "/home/u/.local/state/paddock");
  PolicyBuilder b(ctx_for(fs));
  b.no_system_defaults().allow("/home/u/proj/st", Access::Read, {Origin::Kind::Flag, "--read proj/st"});
  EXPECT_FALSE(b.build());
}

TEST(StateDir, XdgStateHomeElsewhereIsMaskedThere) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/proj").dir("/data/state/paddock/undo");
  PolicyBuilder b(ctx_for(fs, "/data/state"));
  b.no_system_defaults().allow("/data", Access::ReadWrite, {Origin::Kind::Flag, "--allow /data"});
  auto p = b.build();
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_TRUE(denied(*p, "/data/state/paddock"));
}

TEST(StateDir, TheCurrentDirectoryInsideItIsRefused) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/.local/state/paddock/undo");
  HostContext ctx = ctx_for(fs);
  ctx.cwd = "/home/u/.local/state/paddock/undo";
  PolicyBuilder b(ctx);
  b.no_system_defaults();
  EXPECT_FALSE(b.build());
}

// A jail's workspace lies in the state directory; paddock (never the user's cd) may name it, and
// only strictly below jails/: the rest of the store stays masked around it.
TEST(StateDir, AJailWorkspaceNamedByPaddockIsTheOnlyExceptionAndTheRestStaysMasked) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/.local/state/paddock/undo").dir("/home/u/.local/state/paddock/jails/j/workspaces/j");
  const std::string ws = "/home/u/.local/state/paddock/jails/j/workspaces/j";
  for (const std::string& cwd : {ws, std::string("/home/u/.local/state/paddock/jails"),
                                 std::string("/home/u/.local/state/paddock/undo")}) {
    HostContext ctx = ctx_for(fs);
    ctx.cwd = cwd;
    PolicyBuilder user(ctx);
    user.no_system_defaults();
    EXPECT_FALSE(user.build()) << cwd << ": a user's own cd there is refused";
    PolicyBuilder jail(ctx);
    jail.no_system_defaults().cwd_is_jail_workspace();
    auto p = jail.build();
    EXPECT_EQ(p.ok(), cwd == ws) << cwd;
    if (p) {
      // Only the workspace is granted: no rule reaches the store beside it.
      for (const PathRule& r : p->paths) {
        const std::string undo = "/home/u/.local/state/paddock/undo";
        EXPECT_FALSE(undo == r.path || undo.rfind(r.path + "/", 0) == 0) << r.path;
      }
      EXPECT_FALSE(denied(*p, ws));
    }
  }
}

// Root's system-wide state (/var/lib/paddock: root's jails) is paddock's own too: masked under a
// rule that shows it, refused when named; for other users it is none of paddock's business here.
TEST(StateDir, RootsSystemStateIsMaskedAndRefusedToo) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/proj").dir("/var/lib/paddock/jails/x/runtime").dir("/var/lib/apt");
  HostContext root = ctx_for(fs);
  root.uid = 0;
  root.gid = 0;
  root.state = state_layout({0, root.home, {}, {}});
  {
    PolicyBuilder b(root);
    b.no_system_defaults().allow("/var", Access::ReadWrite, {Origin::Kind::Flag, "--allow /var"});
    auto p = b.build();
    ASSERT_TRUE(p) << p.error().describe();
    EXPECT_TRUE(denied(*p, "/var/lib/paddock"));
    EXPECT_FALSE(explain_path(*p, "/var/lib/paddock/jails/x/runtime/runtime.json", Op::Write, *fs).allowed);
    EXPECT_TRUE(explain_path(*p, "/var/lib/apt/lists", Op::Write, *fs).allowed);
  }
  {
    PolicyBuilder b(root);
    b.no_system_defaults().allow("/var/lib/paddock/jails/x", Access::Read, {Origin::Kind::Flag, "--read"});
    auto p = b.build();
    ASSERT_FALSE(p);
    EXPECT_NE(p.error().message.find("paddock's own state"), std::string::npos) << p.error().message;
  }
  {
    PolicyBuilder b(ctx_for(fs));
    b.no_system_defaults().allow("/var", Access::ReadWrite, {Origin::Kind::Flag, "--allow /var"});
    auto p = b.build();
    ASSERT_TRUE(p) << p.error().describe();
    EXPECT_FALSE(denied(*p, "/var/lib/paddock"));
  }
}

// A jail store moved with PADDOCK_JAILS_DIR: masked under a rule that shows it, refused when a
// rule names it, watched when absent and writable; a jail's workspace in it is the only grant
// paddock makes there.
TEST(StateDir, AMovedJailStoreIsMaskedRefusedAndWatched) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/proj").dir("/data/jails/j/workspaces/j").dir("/data/jails/j/runtime");
  {
    PolicyBuilder b(ctx_for(fs, {}, "/data/jails"));
    b.no_system_defaults().allow("/data", Access::ReadWrite, {Origin::Kind::Flag, "--allow /data"});
    auto p = b.build();
    ASSERT_TRUE(p) << p.error().describe();
    EXPECT_TRUE(denied(*p, "/data/jails"));
    Decision d = explain_path(*p, "/data/jails/j/runtime/runtime.json", Op::Write, *fs);
    EXPECT_FALSE(d.allowed);
    EXPECT_NE(d.reason.find("paddock's own state"), std::string::npos) << d.reason;
  }
  for (const char* grant : {"/data/jails", "/data/jails/j/runtime"}) {
    PolicyBuilder b(ctx_for(fs, {}, "/data/jails"));
    b.no_system_defaults().allow(grant, Access::Read, {Origin::Kind::Flag, std::string("--read ") + grant});
    auto p = b.build();
    ASSERT_FALSE(p) << grant;
    EXPECT_NE(p.error().message.find("paddock's own state"), std::string::npos) << p.error().message;
  }
  {
    // Not made yet: watched, so what a sandbox plants there is moved aside after the run.
    PolicyBuilder b(ctx_for(fs, {}, "/data/later"));
    b.no_system_defaults().allow("/data", Access::ReadWrite, {Origin::Kind::Flag, "--allow /data"});
    auto p = b.build();
    ASSERT_TRUE(p) << p.error().describe();
    EXPECT_TRUE(std::any_of(p->protected_paths.begin(), p->protected_paths.end(), [](const ProtectedPath& pp) {
      return pp.path == "/data/later" && !pp.exists;
    }));
  }
  const std::string ws = "/data/jails/j/workspaces/j";
  for (const std::string& cwd : {ws, std::string("/data/jails"), std::string("/data/jails/j/runtime")}) {
    HostContext ctx = ctx_for(fs, {}, "/data/jails");
    ctx.cwd = cwd;
    PolicyBuilder user(ctx);
    user.no_system_defaults();
    EXPECT_FALSE(user.build()) << cwd << ": a user's own cd there is refused";
    PolicyBuilder jail(ctx);
    jail.no_system_defaults().cwd_is_jail_workspace();
    EXPECT_EQ(jail.build().ok(), cwd != "/data/jails") << cwd << ": paddock names a place strictly inside the store";
  }
}

// The workspace exception is the jail store's, nowhere else in the state: root's jails live in
// /var/lib/paddock/jails, so ~/.local/state/paddock/jails is no workspace of root's.
TEST(StateDir, TheJailWorkspaceExceptionIsTheStoresOnly) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/root/.local/state/paddock/jails/j/workspaces/j").dir("/var/lib/paddock/jails/j/workspaces/j");
  HostContext root = ctx_for(fs);
  root.uid = 0;
  root.home = "/root";
  root.state = state_layout({0, "/root", {}, {}});
  root.cwd = "/root/.local/state/paddock/jails/j/workspaces/j";
  PolicyBuilder in_user_dir(root);
  in_user_dir.no_system_defaults().cwd_is_jail_workspace();
  EXPECT_FALSE(in_user_dir.build());
  root.cwd = "/var/lib/paddock/jails/j/workspaces/j";
  PolicyBuilder in_store(root);
  in_store.no_system_defaults().cwd_is_jail_workspace();
  EXPECT_TRUE(in_store.build().ok());
}

// The layout is the user's, fixed when the context is made: a caller that gives the sandbox
// another HOME afterwards (MCP's /workspace) still masks the user's real state.
TEST(StateDir, AContextWithAnotherHomeKeepsTheUsersStateMasked) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/home/u/proj").dir("/home/u/.local/state/paddock/undo").dir("/workspace");
  HostContext ctx = ctx_for(fs);
  ctx.home = "/workspace";
  PolicyBuilder b(ctx);
  b.no_system_defaults().allow("/home/u", Access::Read, {Origin::Kind::Profile, "mcp environment e"});
  auto p = b.build();
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_TRUE(denied(*p, "/home/u/.local/state/paddock"));
}

}  // namespace
}  // namespace paddock
