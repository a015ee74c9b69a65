// The listing of what a run wrote in its fresh HOME: on a real directory standing in for the
// tmpfs clone (the walk only sees a descriptor).
#include "engine/discarded_writes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "sys/remove_tree.h"

namespace paddock::engine {
namespace {

class DiscardedWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-discard-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fd_ = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    close(fd_);
    (void)sys::remove_tree(dir_);
  }
  void mkdirs(const std::string& rel) {
    std::string p = dir_;
    std::size_t pos = 0;
    while (pos != std::string::npos) {
      std::size_t next = rel.find('/', pos);
      p = dir_ + "/" + rel.substr(0, next);
      mkdir(p.c_str(), 0755);
      pos = next == std::string::npos ? next : next + 1;
    }
  }
  void file(const std::string& rel, std::size_t size) {
    std::ofstream(dir_ + "/" + rel) << std::string(size, 'x');
  }
  DiscardedWrites list(const DiscardWalkLimits& l = {}) {
    // As the sandbox sees it: HOME is /home/u; paddock made ~/src/proj (a mount point) and ~/src.
    return list_discarded_writes(fd_, "/home/u", {"/home/u/src", "/home/u/src/proj"}, l);
  }
  std::string dir_;
  int fd_ = -1;
};

TEST_F(DiscardedWritesTest, NothingWrittenListsNothing) {
  mkdirs("src/proj");
  DiscardedWrites d = list();
  EXPECT_TRUE(d.recorded);
  EXPECT_TRUE(d.complete);
  EXPECT_EQ(d.entries, 0u);
  EXPECT_EQ(d.tops, 0u);
  EXPECT_TRUE(d.paths.empty());
}

TEST_F(DiscardedWritesTest, AFileBesideTheProjectIsNamedWithItsSize) {
  // `echo x > ../sibling.txt` from ~/src/proj.
  mkdirs("src/proj");
  file("src/sibling.txt", 2);
  DiscardedWrites d = list();
  EXPECT_EQ(d.entries, 1u);
  EXPECT_EQ(d.bytes, 2u);
  ASSERT_EQ(d.paths.size(), 1u);
  EXPECT_EQ(d.paths[0], "/home/u/src/sibling.txt");
}

TEST_F(DiscardedWritesTest, ANewDirectoryIsOneTopmostEntryAndItsContentIsCounted) {
  mkdirs("src/proj");
  mkdirs(".cache/pip/http");
  file(".cache/pip/http/a", 10);
  file(".cache/pip/b", 5);
  file(".bashrc", 1);
  DiscardedWrites d = list();
  EXPECT_EQ(d.entries, 6u);  // .cache, pip, http, a, b, .bashrc
  EXPECT_EQ(d.bytes, 16u);
  EXPECT_EQ(d.tops, 2u);
  EXPECT_EQ(d.paths, (std::vector<std::string>{"/home/u/.bashrc", "/home/u/.cache/"}));
}

TEST_F(DiscardedWritesTest, TheFirstFewAreSortedAndTheRestCounted) {
  for (char c = 'a'; c <= 'h'; ++c) file(std::string(1, c), 1);
  DiscardWalkLimits l;
  l.max_paths = 3;
  DiscardedWrites d = list(l);
  EXPECT_EQ(d.tops, 8u);
  EXPECT_EQ(d.paths, (std::vector<std::string>{"/home/u/a", "/home/u/b", "/home/u/c"}));
}

TEST_F(DiscardedWritesTest, SymlinksAreCountedNeverFollowed) {
  // A link to a directory full of files outside: one entry, nothing behind it walked.
  mkdirs("src/proj");
  for (int i = 0; i < 5; ++i) file("src/proj/f" + std::to_string(i), 100);
  ASSERT_EQ(symlink((dir_ + "/src/proj").c_str(), (dir_ + "/link").c_str()), 0);
  DiscardedWrites d = list();
  // The link, and the five files under the mount point (here nothing is mounted over it); through
  // the link they would have been counted twice.
  EXPECT_EQ(d.entries, 6u);
  EXPECT_EQ(d.bytes, 500u);
  EXPECT_EQ(d.paths.front(), "/home/u/link");
}

TEST_F(DiscardedWritesTest, DepthAndEntryLimitsSayTheListingIsIncomplete) {
  mkdirs("a/b/c/d/e");
  file("a/b/c/d/e/deep", 7);
  DiscardWalkLimits shallow;
  shallow.max_depth = 2;
  DiscardedWrites d = list(shallow);
  EXPECT_FALSE(d.complete);
  EXPECT_EQ(d.bytes, 0u);
  DiscardWalkLimits few;
  few.max_entries = 2;
  d = list(few);
  EXPECT_FALSE(d.complete);
  EXPECT_LE(d.entries, 2u);
  EXPECT_TRUE(list().complete);
  EXPECT_EQ(list().bytes, 7u);
}

}  // namespace
}  // namespace paddock::engine
