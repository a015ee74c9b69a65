// The listings read ahead are the listings RealTreeFs reads itself, no more: the same children
// with the same lstat for every directory, nothing below a skipped directory, a symlink to a
// directory listed as a link and never entered, nothing past the depth asked for.
#include "undo/tree_listing.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "sys/unique_fd.h"
#include "undo/fake_rig.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock::undo {
namespace {

namespace fs = std::filesystem;
using rig::TempDir;

void put(const std::string& p, const std::string& content) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
}

std::string names(const std::vector<TreeChild>& v) {
  std::string out;
  for (const auto& c : v) out += c.name + (c.st.type == EntryType::Dir ? "/ " : " ");
  return out;
}

class TreeListing : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = t_.path() + "/proj";
    for (int d = 0; d < 12; ++d)
      for (int f = 0; f < 5; ++f) put(root_ + "/d" + std::to_string(d) + "/sub/f" + std::to_string(f), "x");
    put(root_ + "/deep/a/b/c/d/e/file", "deep");
    put(root_ + "/node_modules/pkg/index.js", "skipped");
    put(t_.path() + "/outside/secret/file", "outside");
    ASSERT_EQ(::symlink((t_.path() + "/outside").c_str(), (root_ + "/link").c_str()), 0);
    ASSERT_EQ(::mkfifo((root_ + "/fifo").c_str(), 0600), 0);
    // Directories a user cannot open (000) and cannot search (0400: its names can be read, its
    // entries not stat'ed): as root both are read; otherwise the walk reports what it cannot read.
    put(root_ + "/closed/inside", "x");
    put(root_ + "/unsearchable/inside", "x");
    ASSERT_EQ(::chmod((root_ + "/closed").c_str(), 0), 0);
    ASSERT_EQ(::chmod((root_ + "/unsearchable").c_str(), 0400), 0);
    fd_ = sys::UniqueFd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(fd_);
  }
  TempDir t_;
  std::string root_;
  sys::UniqueFd fd_;
};

TEST_F(TreeListing, TheSameListingsAsTheTreeReadsItself) {
  auto tree = open_real_tree(root_);
  ASSERT_TRUE(tree) << tree.error().describe();
  for (unsigned threads : {1u, 2u, 5u}) {
    Listings got = list_tree(fd_.get(), root_, {}, 64, threads);
    // Every directory of the tree, and no other path (the link's target is never entered).
    std::vector<std::string> dirs;
    for (const auto& e : fs::recursive_directory_iterator(root_, fs::directory_options::skip_permission_denied))
      if (e.is_directory() && !e.is_symlink()) dirs.push_back(fs::relative(e.path(), root_).string());
    dirs.push_back("");
    EXPECT_LE(got.size(), dirs.size()) << threads;
    EXPECT_GE(got.size(), dirs.size() - (::geteuid() == 0 ? 0 : 2)) << threads;
    for (const auto& d : dirs) {
      auto it = got.find(d);
      auto own = (*tree)->list(d);
      if (!own) {
        // What the tree cannot read itself: left out (it could not be opened), or the same error.
        if (it != got.end()) {
          ASSERT_FALSE(it->second) << d;
          EXPECT_EQ(it->second.error().describe(), own.error().describe());
        }
        continue;
      }
      ASSERT_NE(it, got.end()) << "'" << d << "' with " << threads << " threads";
      ASSERT_TRUE(it->second) << it->second.error().describe();
      std::sort(own->begin(), own->end(), [](const TreeChild& a, const TreeChild& b) { return a.name < b.name; });
      EXPECT_EQ(names(*it->second), names(*own)) << d;
      ASSERT_EQ(it->second->size(), own->size());
      for (std::size_t i = 0; i < own->size(); ++i) {
        const FileStat &a = (*it->second)[i].st, &b = (*own)[i].st;
        EXPECT_TRUE(a.type == b.type && a.ino == b.ino && a.dev == b.dev && a.size == b.size &&
                    a.mtime_ns == b.mtime_ns && a.ctime_ns == b.ctime_ns && a.mode == b.mode)
            << d << "/" << (*own)[i].name;
      }
    }
    EXPECT_EQ(got.count("link"), 0u);
    EXPECT_EQ(got.count("link/secret"), 0u);
  }
}

TEST_F(TreeListing, SkippedDirectoriesAndTheDepthLimitAreLeftToTheWalk) {
  Listings got = list_tree(
      fd_.get(), root_, [](const std::string&, const std::string& name) { return name == "node_modules"; }, 3, 2);
  EXPECT_EQ(got.count("node_modules"), 0u);
  EXPECT_EQ(got.count("node_modules/pkg"), 0u);
  ASSERT_EQ(got.count(""), 1u);
  EXPECT_NE(names(*got.at("")).find("node_modules/"), std::string::npos);  // listed, not entered
  EXPECT_EQ(got.count("deep/a/b"), 1u);  // 3 levels below the root
  EXPECT_EQ(got.count("deep/a/b/c"), 0u);
  EXPECT_EQ(got.count("d3/sub"), 1u);
  // Past MAX_ENTRIES no directory is started: the root's listing and nothing else.
  Listings few = list_tree(fd_.get(), root_, {}, 64, 2, 10);
  EXPECT_EQ(few.size(), 1u);
  EXPECT_EQ(few.count(""), 1u);
}

// A directory swapped, after it was listed and before it is opened, for a symlink to a directory
// outside the tree (a racing writer) is not followed: it is left out, for the walk to read and
// report itself, and nothing outside is listed. The same for one swapped for a file.
TEST_F(TreeListing, ADirectorySwappedForASymlinkOrAFileIsLeftOut) {
  const std::string outside = t_.path() + "/outside";
  Listings got = list_tree(
      fd_.get(), root_,
      [&](const std::string& path, const std::string&) {
        if (path == "d5") {  // listed as a directory: a symlink now
          fs::rename(root_ + "/d5", t_.path() + "/d5.moved");
          fs::create_directory_symlink(outside, root_ + "/d5");
        } else if (path == "d6") {
          fs::remove_all(root_ + "/d6");
          put(root_ + "/d6", "now a file");
        }
        return false;
      },
      64, 1);
  EXPECT_EQ(got.count("d5"), 0u);
  EXPECT_EQ(got.count("d5/secret"), 0u);
  EXPECT_EQ(got.count("d6"), 0u);
  EXPECT_EQ(got.count("d7/sub"), 1u);
  for (const auto& [path, listing] : got)
    if (listing)
      for (const auto& c : *listing) EXPECT_NE(c.name, "secret") << path;
}

// Runs of `paddock run --undo` over a real tree (its walks read ahead where the machine has more
// than one core): the next run's first snapshot, seeded from the last run's, reads only the files
// whose metadata moved, and sees a change made between the runs with the same size and the mtime
// put back (its ctime moved), an added file and a removed one, and nothing excluded.
TEST_F(TreeListing, SeededRunsOverARealTreeSeeWhatChanged) {
  if (listing_threads() < 2) std::fprintf(stderr, "one core: the walks read nothing ahead here\n");
  auto store = Store::open(t_.path() + "/state/paddock/undo", true);
  ASSERT_TRUE(store) << store.error().describe();
  Scope scope;
  scope.roots = {root_};
  scope.excludes = default_excludes();
  auto session = [&](const std::function<void()>& run) -> std::pair<SessionInfo, SnapshotInfo> {
    SnapshotManager mgr(**store);
    auto s = mgr.begin(scope, {"agent"}, root_);
    EXPECT_TRUE(s) << s.error().describe();
    auto first = mgr.snapshot(*s, "before run");
    EXPECT_TRUE(first) << first.error().describe();
    run();
    ::usleep(60'000);  // past the racy window (RealTreeFs: 20 ms)
    auto last = mgr.snapshot(*s, "after run");
    EXPECT_TRUE(last) << last.error().describe();
    EXPECT_TRUE(mgr.save_seed(*s));
    return {*s, *first};
  };
  ::usleep(60'000);
  auto [a, a0] = session([] {});
  EXPECT_GE(a0.files_hashed, 60u);
  const std::string changed = root_ + "/d7/sub/f3";
  struct stat before;
  ASSERT_EQ(::stat(changed.c_str(), &before), 0);
  put(changed, "y");  // the same size
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, changed.c_str(), times, 0), 0);
  put(root_ + "/d8/sub/new", "added");
  ASSERT_EQ(::unlink((root_ + "/d9/sub/f1").c_str()), 0);
  put(root_ + "/node_modules/pkg/index.js", "excluded, changed");
  ::usleep(60'000);
  auto [b, b0] = session([] {});
  EXPECT_EQ(b0.files_hashed, 2u);  // d7/sub/f3 and d8/sub/new, nothing else
  auto ma = (*store)->load_manifest(a.id, 1), mb = (*store)->load_manifest(b.id, 0);
  ASSERT_TRUE(ma && mb);
  const RootManifest &ra = ma->roots.at(0), &rb = mb->roots.at(0);
  ASSERT_TRUE(ra.find("d7/sub/f3") && rb.find("d7/sub/f3"));
  EXPECT_NE(ra.find("d7/sub/f3")->hash, rb.find("d7/sub/f3")->hash);
  EXPECT_TRUE(rb.find("d8/sub/new"));
  EXPECT_FALSE(rb.find("d9/sub/f1"));
  EXPECT_FALSE(rb.find("node_modules"));
  EXPECT_FALSE(rb.find("node_modules/pkg/index.js"));
  EXPECT_EQ(rb.entries.size(), ra.entries.size());  // one added, one removed
}

}  // namespace
}  // namespace paddock::undo
