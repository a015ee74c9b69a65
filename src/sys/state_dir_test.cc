#include "sys/state_dir.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

namespace paddock::sys {
namespace {

class StateDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-statedir-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + root_).c_str()), 0); }
  std::string root_;
};

TEST_F(StateDir, CreatesMissingComponentsPrivatelyOnce) {
  auto r = make_dir_under(root_, root_ + "/.local/share/agent", 0700);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(*r);
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/.local/share/agent").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto again = make_dir_under(root_, root_ + "/.local/share/agent", 0700);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST_F(StateDir, NeverFollowsASymlinkBelowTheRoot) {
  char out[] = "/tmp/paddock-statedir-out-XXXXXX";
  ASSERT_NE(::mkdtemp(out), nullptr);
  ASSERT_EQ(::symlink(out, (root_ + "/.claude").c_str()), 0);
  auto r = make_dir_under(root_, root_ + "/.claude/x", 0700);
  EXPECT_FALSE(r.ok());
  struct stat st;
  EXPECT_NE(::stat((std::string(out) + "/x").c_str(), &st), 0);  // nothing made through the link
  ::rmdir(out);
}

TEST_F(StateDir, RefusesPathsOutsideTheRoot) {
  EXPECT_FALSE(make_dir_under(root_, "/etc/x", 0700).ok());
  EXPECT_FALSE(make_dir_under(root_, root_, 0700).ok());
  EXPECT_FALSE(make_dir_under(root_, root_ + "/../x", 0700).ok());
}

}  // namespace
}  // namespace paddock::sys

namespace paddock::sys {
namespace {

TEST_F(StateDir, MakesAMissingFileOnceAndNeverThroughASymlink) {
  auto r = make_file_under(root_, root_ + "/.agent/state.json", "{}", 0600);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(*r);
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/.agent/state.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 2);
  // There already (with the agent's own content): kept as it is.
  ASSERT_EQ(std::system(("echo -n '{\"a\":1}' > " + root_ + "/.agent/state.json").c_str()), 0);
  auto again = make_file_under(root_, root_ + "/.agent/state.json", "{}", 0600);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  ASSERT_EQ(::stat((root_ + "/.agent/state.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 7);
  // A symlink planted at the name is not written through.
  ASSERT_EQ(::symlink("/etc/hostname", (root_ + "/.link.json").c_str()), 0);
  auto link = make_file_under(root_, root_ + "/.link.json", "{}", 0600);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().describe().find("symlink"), std::string::npos) << link.error().describe();
}

}  // namespace
}  // namespace paddock::sys
