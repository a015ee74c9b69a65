#include "host/roots.h"

#include <gtest/gtest.h>

#include "policy/fake_fs.h"

namespace paddock::host {
namespace {

class RootsTest : public ::testing::Test {
 protected:
  RootsTest() {
    fs_.dir("/home/alice/src/proj/sub")
        .dir("/home/alice/notes")
        .dir("/home/bob/src/secret")
        .dir("/srv/projects/alice/web")
        .dir("/srv/projects/bob/api")
        .symlink("/home/alice/src/escape", "/home/bob/src/secret")  // a link out of a root
        .symlink("/home/alice/shortcut", "src/proj")                 // a link into a root
        .symlink("/home/alice/work", "/srv/projects/bob")            // a "~" root that leads away
        .symlink("/home/alice/all", "/home/alice");
    alice_ = {"alice", 1001, 1001, "/home/alice"};
    logins_ = {{"root", 0, 0, "/root"}, alice_, {"bob", 1002, 1002, "/home/bob"}};
    entry_.name = "alice";
    entry_.roots = {{"~/src", false, "host.toml:14:10"}, {"/srv/projects/alice", false, "host.toml:14:19"}};
  }
  std::vector<ResolvedRoot> roots() { return resolve_roots(entry_, alice_, fs_, logins_); }
  std::string verdict(const std::string& cwd) {
    auto r = check_cwd(cwd, roots(), "alice", fs_);
    return r ? "allowed under " + r->given : r.error().message;
  }
  FakeFs fs_;
  UserInfo alice_;
  std::vector<UserInfo> logins_;
  UserEntry entry_;
};

TEST_F(RootsTest, TildeIsTheUsersHomeAndRootsAreResolved) {
  auto r = roots();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].path, "/home/alice/src");
  EXPECT_EQ(r[1].path, "/srv/projects/alice");
  EXPECT_EQ(describe_roots(r), "  ~/src  (/home/alice/src)\n  /srv/projects/alice\n");
}

TEST_F(RootsTest, InsideARootIsAllowed) {
  EXPECT_EQ(verdict("/home/alice/src"), "allowed under ~/src");
  EXPECT_EQ(verdict("/home/alice/src/proj/sub"), "allowed under ~/src");
  EXPECT_EQ(verdict("/srv/projects/alice/web"), "allowed under /srv/projects/alice");
}

TEST_F(RootsTest, OutsideTheRootsIsRefusedWithTheListOfRoots) {
  EXPECT_EQ(verdict("/home/alice/notes"),
            "/home/alice/notes is not under a project root of alice\n"
            "the project roots of alice are:\n"
            "  ~/src  (/home/alice/src)\n"
            "  /srv/projects/alice\n"
            "(paddock host explain shows them with the config they come from)");
  // Another user's root, and a prefix that is not a parent.
  EXPECT_NE(verdict("/srv/projects/bob/api").find("is not under a project root of alice"), std::string::npos);
  fs_.dir("/home/alice/src2");
  EXPECT_NE(verdict("/home/alice/src2").find("is not under a project root"), std::string::npos);
}

TEST_F(RootsTest, NoSymlinkOrDotDotGames) {
  // The kernel's name of a directory has neither; a path that has them is refused as it is.
  EXPECT_NE(verdict("/home/alice/src/escape").find("does not resolve to itself"), std::string::npos);
  EXPECT_NE(verdict("/home/alice/src/..").find("has no usable path"), std::string::npos);
  EXPECT_NE(verdict("/home/alice/src/proj/../../notes").find("has no usable path"), std::string::npos);
  EXPECT_NE(verdict("src/proj").find("has no usable path"), std::string::npos);
  // Where the link leads is what counts: bob's directory is not alice's root.
  EXPECT_NE(verdict("/home/bob/src/secret").find("is not under a project root"), std::string::npos);
  // A link from outside into a root lands in the root: its real path is allowed.
  EXPECT_EQ(verdict("/home/alice/src/proj"), "allowed under ~/src");
}

TEST_F(RootsTest, RootsThatResolveBadlyAreUnusable) {
  entry_.roots = {{"~/work", false, "a"}, {"~/all", false, "b"}, {"/nonexistent", false, "c"}, {"~/src", false, "d"}};
  auto r = roots();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].path, "");
  EXPECT_EQ(r[0].note, "resolves to /srv/projects/bob, outside the user's home");
  EXPECT_EQ(r[1].path, "");
  EXPECT_EQ(r[1].note, "resolves to /home/alice, which is the whole home of alice (allow_broad is not set)");
  EXPECT_EQ(r[2].note, "does not exist");
  EXPECT_EQ(r[3].path, "/home/alice/src");
  EXPECT_NE(verdict("/srv/projects/bob/api").find("[unusable: resolves to /srv/projects/bob, outside the user's home]"),
            std::string::npos);
  // allow_broad lets a whole home through, once an administrator wrote it so.
  entry_.roots = {{"~", true, "a"}};
  EXPECT_EQ(verdict("/home/alice/notes"), "allowed under ~");
}

}  // namespace
}  // namespace paddock::host
