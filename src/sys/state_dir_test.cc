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
