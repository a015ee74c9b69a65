// The real tree never follows a symlink on the way to what it reads or changes (issue 26 item 8):
// a directory replaced by a symlink to a place outside the tree — after the tree was opened, and
// between a restore's plan and its writes — makes the operation fail; nothing outside is read,
// written or removed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "undo/fake_rig.h"
#include "undo/snapshot_manager.h"
#include "undo/tree_fs.h"

namespace paddock::undo {
namespace {

namespace fs = std::filesystem;
using rig::TempDir;

void put(const std::string& p, const std::string& content) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// What OUTSIDE holds: every entry with its content.
std::string listing(const std::string& dir) {
  std::string out;
  std::vector<std::string> lines;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    lines.push_back(e.path().string() + (e.is_regular_file() ? " [" + slurp(e.path().string()) + "]" : ""));
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// DIR (in ROOT) becomes a symlink to OUTSIDE; the directory itself is kept beside it.
void swap_for_link(const std::string& root, const std::string& dir, const std::string& outside) {
  ASSERT_EQ(::rename((root + "/" + dir).c_str(), (root + "/" + dir + ".moved").c_str()), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/" + dir).c_str()), 0);
}

TEST(RealTreeFs, ASymlinkWhereADirectoryWasIsNeverFollowed) {
  TempDir t;
  const std::string root = t.path() + "/proj", outside = t.path() + "/outside";
  put(root + "/a/b/file", "in the tree");
  // What a followed link would reach: for a/b swapped, OUTSIDE itself; for a, OUTSIDE/b.
  for (const std::string& d : {outside, outside + "/b"}) {
    put(d + "/file", "outside");
    put(d + "/victim", "outside");
  }
  const std::string before = listing(outside);
  // The deepest directory, then one on the way, swapped for a link after the tree was opened.
  for (const std::string& swapped : {"a/b", "a"}) {
    SCOPED_TRACE(swapped);
    auto fresh = open_real_tree(root);
    ASSERT_TRUE(fresh) << fresh.error().describe();
    ASSERT_TRUE((*fresh)->stat(""));
    swap_for_link(root, swapped, outside);
    const std::string in = "a/b";
    FileStat meta;
    meta.type = EntryType::File;
    meta.mode = 0644;
    int content = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(content, 0);
    EXPECT_FALSE((*fresh)->write_file(in + "/written", content, meta));
    ::close(content);
    meta.type = EntryType::Dir;
    meta.mode = 0755;
    EXPECT_FALSE((*fresh)->make_dir(in + "/made", meta));
    EXPECT_FALSE((*fresh)->make_symlink(in + "/link", "/"));
    EXPECT_FALSE((*fresh)->remove(in + "/victim"));
    EXPECT_FALSE((*fresh)->set_mode(in + "/victim", 0777));
    EXPECT_FALSE((*fresh)->open_file(in + "/file"));
    EXPECT_FALSE((*fresh)->list(in));
    auto st = (*fresh)->stat(in + "/victim");
    EXPECT_FALSE(st);
    EXPECT_EQ(listing(outside), before);
    // Back as it was for the next round.
    ASSERT_EQ(::unlink((root + "/" + swapped).c_str()), 0);
    ASSERT_EQ(::rename((root + "/" + swapped + ".moved").c_str(), (root + "/" + swapped).c_str()), 0);
  }
  EXPECT_EQ(listing(outside), before);
}

// A tree that, on the restore's first change, swaps DIR for a symlink to OUTSIDE and then does
// what it was asked through the real tree: the swap lands between the plan and the writes.
class SwapOnFirstWrite final : public TreeFs {
 public:
  SwapOnFirstWrite(std::unique_ptr<TreeFs> real, std::string root, std::string dir, std::string outside, bool& armed)
      : real_(std::move(real)), root_(std::move(root)), dir_(std::move(dir)), outside_(std::move(outside)), armed_(armed) {}
  Result<std::vector<TreeChild>> list(const std::string& d) override { return real_->list(d); }
  Result<FileStat> stat(const std::string& p) override { return real_->stat(p); }
  Result<sys::UniqueFd> open_file(const std::string& p) override { return real_->open_file(p); }
  Result<std::string> read_link(const std::string& p) override { return real_->read_link(p); }
  Result<void> make_dir(const std::string& p, const FileStat& m) override { return swap(), real_->make_dir(p, m); }
  Result<void> write_file(const std::string& p, int fd, const FileStat& m) override {
    return swap(), real_->write_file(p, fd, m);
  }
  Result<void> make_symlink(const std::string& p, const std::string& t) override {
    return swap(), real_->make_symlink(p, t);
  }
  Result<void> remove(const std::string& p) override { return swap(), real_->remove(p); }
  Result<void> set_mode(const std::string& p, mode_t m) override { return swap(), real_->set_mode(p, m); }
  Result<void> sync() override { return real_->sync(); }
  std::int64_t now_ns() override { return real_->now_ns(); }
  std::int64_t timestamp_granularity_ns() override { return real_->timestamp_granularity_ns(); }

 private:
  void swap() {
    if (!armed_) return;
    armed_ = false;
    swap_for_link(root_, dir_, outside_);
  }
  std::unique_ptr<TreeFs> real_;
  std::string root_, dir_, outside_;
  bool& armed_;
};

TEST(RealTreeFs, ADirectorySwappedForASymlinkDuringARestoreIsNotFollowed) {
  TempDir t;
  const std::string root = t.path() + "/proj", outside = t.path() + "/outside";
  put(root + "/src/main.c", "v0");
  put(root + "/src/deep/x", "v0");
  put(outside + "/main.c", "outside");
  put(outside + "/new", "outside: must not be removed");
  put(outside + "/deep/x", "outside");
  const std::string before = listing(outside);
  auto store = Store::open(t.path() + "/state/paddock/undo", true);
  ASSERT_TRUE(store) << store.error().describe();
  bool armed = false;
  SnapshotManager mgr(**store, [&](const std::string& r) -> Result<std::shared_ptr<TreeFs>> {
    auto real = open_real_tree(r);
    if (!real) return std::move(real).take_error();
    return std::shared_ptr<TreeFs>(new SwapOnFirstWrite(std::move(*real), root, "src", outside, armed));
  }, {});
  Scope scope;
  scope.roots = {root};
  auto s = mgr.begin(scope, {"agent"}, root);
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_TRUE(mgr.snapshot(*s, "before"));
  put(root + "/src/main.c", "v1");
  put(root + "/src/new", "added");
  put(root + "/src/deep/x", "v1");
  ASSERT_TRUE(mgr.snapshot(*s, "after"));
  RestoreRequest req;
  req.session = s->id;
  req.target = 0;
  armed = true;
  auto out = mgr.restore(req);
  EXPECT_FALSE(armed) << "the restore changed nothing: the swap never happened";
  EXPECT_FALSE(out) << "the restore went on through the symlink";
  EXPECT_EQ(listing(outside), before);
  EXPECT_EQ(slurp(root + "/src.moved/main.c"), "v1");  // not written through the link either
}

}  // namespace
}  // namespace paddock::undo
