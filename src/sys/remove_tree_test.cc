#include "sys/remove_tree.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>

#include "sys/unique_fd.h"

namespace paddock::sys {
namespace {

class RemoveTree : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-rmtree-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { (void)remove_tree(root_); }
  bool exists(const std::string& rel) const {
    struct stat st;
    return lstat((root_ + "/" + rel).c_str(), &st) == 0;
  }
  std::string root_;
};

// Deeper than the descriptor limit and than PATH_MAX, with directories the sandbox made unusable
// (chmod 000) on the way and at the bottom: all gone, with a handful of descriptors.
TEST_F(RemoveTree, DeepTreeWithUnusableDirectoriesAndFewDescriptors) {
  ASSERT_EQ(mkdir((root_ + "/t").c_str(), 0700), 0);
  UniqueFd fd(open((root_ + "/t").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  constexpr int kDepth = 5000;
  for (int i = 0; i < kDepth; ++i) {
    ASSERT_EQ(mkdirat(fd.get(), "d", 0700), 0) << i;
    ASSERT_EQ(close(openat(fd.get(), "f", O_CREAT | O_WRONLY | O_CLOEXEC, 0600)), 0);
    UniqueFd next(openat(fd.get(), "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(next);
    if (i % 1000 == 999) fchmod(fd.get(), 0);  // a directory nobody may read, write or enter
    fd = std::move(next);
  }
  fchmod(fd.get(), 0);
  fd.reset();
  struct rlimit was;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &was), 0);
  struct rlimit few = was;
  few.rlim_cur = 32;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &few), 0);
  auto r = remove_tree(root_ + "/t");
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &was), 0);
  EXPECT_TRUE(r.ok()) << r.error().describe();
  EXPECT_FALSE(exists("t"));
}

TEST_F(RemoveTree, SymlinksAreRemovedNeverFollowed) {
  std::ofstream(root_ + "/outside") << "keep";
  ASSERT_EQ(mkdir((root_ + "/keepdir").c_str(), 0700), 0);
  std::ofstream(root_ + "/keepdir/f") << "keep";
  ASSERT_EQ(mkdir((root_ + "/t").c_str(), 0700), 0);
  ASSERT_EQ(symlink((root_ + "/outside").c_str(), (root_ + "/t/file-link").c_str()), 0);
  ASSERT_EQ(symlink((root_ + "/keepdir").c_str(), (root_ + "/t/dir-link").c_str()), 0);
  EXPECT_TRUE(remove_tree(root_ + "/t").ok());
  EXPECT_FALSE(exists("t"));
  EXPECT_TRUE(exists("outside"));
  EXPECT_TRUE(exists("keepdir/f"));
  // The tree itself a symlink: the link goes, its target stays.
  ASSERT_EQ(symlink((root_ + "/keepdir").c_str(), (root_ + "/link").c_str()), 0);
  EXPECT_TRUE(remove_tree(root_ + "/link").ok());
  EXPECT_FALSE(exists("link"));
  EXPECT_TRUE(exists("keepdir/f"));
}

TEST_F(RemoveTree, AbsentIsNothingToDo) { EXPECT_TRUE(remove_tree(root_ + "/none").ok()); }

}  // namespace
}  // namespace paddock::sys
