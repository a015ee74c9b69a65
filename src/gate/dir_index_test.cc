// The directory index (dir_index.h): what is kept, when a listing stands for a new one, and what
// makes a file not used.
#include "gate/dir_index.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace paddock::gate {
namespace {

class DirIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char a[] = "/tmp/paddock-dir-index-XXXXXX";
    ASSERT_NE(::mkdtemp(a), nullptr);
    dir_ = a;
    ASSERT_EQ(::mkdir((dir_ + "/state").c_str(), 0700), 0);
    state_ = dir_ + "/state";
    ASSERT_EQ(::mkdir((dir_ + "/tree").c_str(), 0755), 0);
    tree_ = dir_ + "/tree";
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }

  static struct timespec now() {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME_COARSE, &t);
    return t;
  }
  struct stat stat_of(const std::string& p) const {
    struct stat st{};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st;
  }
  // An index of TREE with its top listed as L, written once its ctime is settled.
  void write_index(const Listing& l) const {
    usleep(30'000);
    DirIndex idx = DirIndex::load(state_ + "/gate", tree_, 7, now());
    idx.put(stat_of(tree_), l);
    ASSERT_TRUE(idx.dirty());
    ASSERT_TRUE(idx.save());
  }
  DirIndex load(std::uint64_t fingerprint = 7) const { return DirIndex::load(state_ + "/gate", tree_, fingerprint, now()); }
  std::string index_file() const { return DirIndex::file_for(state_ + "/gate", tree_); }

  std::string dir_, state_, tree_;
};

TEST_F(DirIndexTest, AListingStandsForADirectoryThatDidNotChange) {
  write_index({{".envrc"}, {"src", "docs"}});
  DirIndex idx = load();
  EXPECT_EQ(idx.loaded(), 1u);
  const Listing* l = idx.find(stat_of(tree_));
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->hits, (std::vector<std::string>{".envrc"}));
  EXPECT_EQ(l->subdirs, (std::vector<std::string>{"src", "docs"}));
  EXPECT_FALSE(idx.dirty());  // found again, nothing new: nothing to write
}

// Every way a directory's entries change moves its ctime, whatever is done to its mtime after.
TEST_F(DirIndexTest, AnEntryAddedRemovedRenamedOrLinkedIsSeen) {
  std::ofstream(tree_ + "/f") << "x";
  ASSERT_EQ(::mkdir((dir_ + "/other").c_str(), 0755), 0);
  std::ofstream(dir_ + "/other/g") << "y";
  const auto cases = std::vector<std::pair<const char*, std::string>>{
      {"create", "touch " + tree_ + "/.envrc"},
      {"remove", "rm " + tree_ + "/f"},
      {"rename in", "mv " + dir_ + "/other/g " + tree_ + "/g"},
      {"rename within", "mv " + tree_ + "/f " + tree_ + "/.envrc"},
      {"hard link", "ln " + dir_ + "/other/g " + tree_ + "/.envrc"},
      {"mkdir", "mkdir " + tree_ + "/sub"},
  };
  for (const auto& [what, cmd] : cases) {
    SCOPED_TRACE(what);
    ASSERT_EQ(std::system(("rm -rf " + tree_ + " && mkdir " + tree_ + " && touch " + tree_ + "/f && mkdir -p " + dir_ +
                           "/other && touch " + dir_ + "/other/g")
                              .c_str()),
              0);
    const struct stat before = stat_of(tree_);
    write_index({{}, {}});
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    // The mtime put back as it was (touch -d, utimensat): only ctime says what happened.
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, tree_.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
    const struct stat after = stat_of(tree_);
    ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    DirIndex idx = load();
    EXPECT_EQ(idx.find(after), nullptr);
  }
}

// A listing read within the racy window of its directory's last change is not kept: a change in
// the same clock tick would leave ctime where it was.
TEST_F(DirIndexTest, ARecentlyChangedDirectoryIsNotKept) {
  DirIndex idx = load();
  ASSERT_EQ(::mkdir((tree_ + "/new").c_str(), 0755), 0);
  const struct stat st = stat_of(tree_);
  EXPECT_FALSE(idx.settled(st));
  idx.put(st, {{}, {"new"}});
  EXPECT_FALSE(idx.dirty());
  usleep(30'000);
  DirIndex later = load();
  EXPECT_TRUE(later.settled(st));
}

// Whole-second timestamps (FAT, old ext4 inodes, some network file systems) get a window of two
// seconds.
TEST_F(DirIndexTest, WholeSecondTimestampsGetALongerWindow) {
  DirIndex idx = load();
  struct stat st = stat_of(tree_);
  const struct timespec t = now();
  st.st_ctim = {t.tv_sec - 1, 0};
  EXPECT_FALSE(idx.settled(st));
  st.st_ctim = {t.tv_sec - 3, 0};
  EXPECT_TRUE(idx.settled(st));
  st.st_ctim = {t.tv_sec - 1, 5};
  EXPECT_TRUE(idx.settled(st));
}

TEST_F(DirIndexTest, AnotherInodeOrAnotherTimeIsNotFound) {
  write_index({{}, {}});
  DirIndex idx = load();
  struct stat st = stat_of(tree_);
  struct stat other = st;
  other.st_ino += 1;
  EXPECT_EQ(idx.find(other), nullptr);
  other = st;
  other.st_dev += 1;
  EXPECT_EQ(idx.find(other), nullptr);
  other = st;
  other.st_ctim.tv_nsec ^= 1;
  EXPECT_EQ(idx.find(other), nullptr);
  other = st;
  other.st_mtim.tv_nsec ^= 1;
  EXPECT_EQ(idx.find(other), nullptr);
  EXPECT_NE(idx.find(st), nullptr);
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
void spit(const std::string& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  ::chmod(p.c_str(), 0600);
}

// What makes an index file not used: then every directory is read, as without one.
TEST_F(DirIndexTest, ATornForeignOrOpenIndexIsNotUsed) {
  write_index({{}, {"a"}});
  const std::string file = index_file();
  const std::string good = slurp(file);
  ASSERT_EQ(load().loaded(), 1u);

  EXPECT_EQ(load(8).loaded(), 0u) << "built with other rules";
  spit(file, good.substr(0, good.size() - 3));
  EXPECT_EQ(load().loaded(), 0u) << "torn";
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x20;
  spit(file, flipped);
  EXPECT_EQ(load().loaded(), 0u) << "a byte changed";
  spit(file, good);
  EXPECT_EQ(load().loaded(), 1u);
  ASSERT_EQ(::chmod(file.c_str(), 0622), 0);
  EXPECT_EQ(load().loaded(), 0u) << "writable by others";
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  ASSERT_EQ(::chmod((state_ + "/gate").c_str(), 0755), 0);
  EXPECT_EQ(load().loaded(), 0u) << "its directory open to others";
  ASSERT_EQ(::chmod((state_ + "/gate").c_str(), 0700), 0);
  // Another area's index under this area's name (as a copy, and as a link).
  const std::string other = DirIndex::file_for(state_ + "/gate", dir_);
  spit(other, good);
  EXPECT_EQ(DirIndex::load(state_ + "/gate", dir_, 7, now()).loaded(), 0u) << "another area's";
  ASSERT_EQ(::unlink(other.c_str()), 0);
  ASSERT_EQ(::symlink(file.c_str(), other.c_str()), 0);
  EXPECT_EQ(DirIndex::load(state_ + "/gate", dir_, 7, now()).loaded(), 0u) << "a symlink";
}

// A save keeps what this walk found or read, and drops what it did not meet again.
TEST_F(DirIndexTest, ASaveKeepsOnlyWhatTheWalkMet) {
  ASSERT_EQ(::mkdir((tree_ + "/a").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((tree_ + "/b").c_str(), 0755), 0);
  usleep(30'000);
  {
    DirIndex idx = load();
    idx.put(stat_of(tree_), {{}, {"a", "b"}});
    idx.put(stat_of(tree_ + "/a"), {});
    idx.put(stat_of(tree_ + "/b"), {});
    ASSERT_TRUE(idx.save());
  }
  {
    DirIndex idx = load();
    EXPECT_EQ(idx.loaded(), 3u);
    EXPECT_NE(idx.find(stat_of(tree_)), nullptr);
    EXPECT_NE(idx.find(stat_of(tree_ + "/a")), nullptr);
    EXPECT_TRUE(idx.dirty());  // b not met
    ASSERT_TRUE(idx.save());
  }
  EXPECT_EQ(load().loaded(), 2u);
}

// At most kMaxFiles index files: the oldest go.
TEST_F(DirIndexTest, OldIndexesArePruned) {
  ASSERT_EQ(::mkdir((state_ + "/gate").c_str(), 0700), 0);
  for (std::size_t i = 0; i < DirIndex::kMaxFiles + 5; ++i) {
    const std::string p = state_ + "/gate/" + std::to_string(1000 + i) + ".index";
    spit(p, "x");
    const struct timespec t[2] = {{100, 0}, {static_cast<time_t>(1000 + i), 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), t, 0), 0);
  }
  write_index({{}, {}});
  std::size_t n = 0;
  for (std::size_t i = 0; i < DirIndex::kMaxFiles + 5; ++i) {
    struct stat st;
    if (::stat((state_ + "/gate/" + std::to_string(1000 + i) + ".index").c_str(), &st) == 0) ++n;
    else EXPECT_LT(i, 6u) << "a newer one went";
  }
  EXPECT_EQ(n + 1, DirIndex::kMaxFiles);
  EXPECT_EQ(load().loaded(), 1u);
}

}  // namespace
}  // namespace paddock::gate
