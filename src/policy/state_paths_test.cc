// paddock's own state ($XDG_STATE_HOME/paddock: the undo store, jails) is masked under any rule
// and cannot be granted (issue 14).
#include "policy/state_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "paddock/why.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

HostContext ctx_for(std::shared_ptr<FakeFs> fs, std::string state_home = {}) {
  HostContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.uid = 1000;
  ctx.gid = 1000;
  ctx.state_home = std::move(state_home);
  ctx.fs = std::move(fs);
  return ctx;
}

bool denied(const Policy& p, const std::string& path) {
  return std::any_of(p.denied.begin(), p.denied.end(), [&](const DeniedPath& d) { return d.path == path; });
}

TEST(StateDir, DefaultAndXdg) {
  auto fs = std::make_shared<FakeFs>();
  EXPECT_EQ(paddock_state_dir(ctx_for(fs)), "/home/u/.local/state/paddock");
  EXPECT_EQ(paddock_state_dir(ctx_for(fs, "/var/st/")), "/var/st/paddock");
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
  EXPECT_EQ(paddock_state_dirs(root), (std::vector<std::string>{"/home/u/.local/state/paddock", "/var/lib/paddock"}));
  EXPECT_EQ(paddock_state_dirs(ctx_for(fs)), (std::vector<std::string>{"/home/u/.local/state/paddock"}));
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

}  // namespace
}  // namespace paddock
