// For the gate's unit tests: a temporary writable area, a policy that grants it, and helpers to
// shape files in it (header only; included by *_test.cc). The walk's suites run each test twice
// (TreeFixtureOf<WalkParam>): reading every directory, and with a directory index that an earlier
// walk of the same tree wrote, so that only what changed since is read (dir_index.h): each rule
// must catch the same in both.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gate/tree_watch.h"

namespace paddock::gate {

enum class Walk { Full, Indexed };
using WalkParam = ::testing::TestWithParam<Walk>;
inline std::string walk_name(const ::testing::TestParamInfo<Walk>& i) {
  return i.param == Walk::Full ? "Full" : "Indexed";
}

// BASE: ::testing::Test, or ::testing::TestWithParam<T> for parameterized tests.
template <typename Base = ::testing::Test>
class TreeFixtureOf : public Base {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-gate-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    policy_.paths.push_back(PathRule{root_, root_, Access::ReadWrite, {Origin::Kind::Flag, "--allow"}, false, {}});
  }
  void TearDown() override {
    ASSERT_EQ(std::system(("rm -rf " + root_).c_str()), 0);
    if (!index_dir_.empty()) {
      ASSERT_EQ(std::system(("rm -rf " + index_dir_).c_str()), 0);
    }
  }
  bool indexed() const {
    if constexpr (std::is_base_of_v<WalkParam, Base>) return this->GetParam() == Walk::Indexed;
    return false;
  }
  // TreeWatch::before(POLICY, MOUNTS). Indexed: an index of the tree as it is is written first by
  // a walk (after the racy window: dir_index.h), and a second walk must find the top in it.
  TreeWatch watch(const Policy& policy, const std::vector<SandboxMount>& mounts = {}) {
    if (!indexed()) return TreeWatch::before(policy, mounts);
    if (index_dir_.empty()) {
      char tmpl[] = "/tmp/paddock-gate-index-XXXXXX";
      if (::mkdtemp(tmpl) == nullptr) ADD_FAILURE() << "mkdtemp";
      index_dir_ = tmpl;
    }
    const IndexPlace place{index_dir_, 0};
    usleep(30'000);
    WalkCost cost;
    EXPECT_TRUE(TreeWatch::before(policy, mounts, place).after(TreeWatch::kEntryBudget, {}, {}, &cost).empty());
    EXPECT_TRUE(TreeWatch::before(policy, mounts, place).after(TreeWatch::kEntryBudget, {}, {}, &cost).empty());
    EXPECT_GT(cost.from_index, 0u) << "the index was not used";
    return TreeWatch::before(policy, mounts, place);
  }
  TreeWatch watch() { return watch(policy_); }
  void write(const std::string& rel, const std::string& text) const {
    std::string p = root_ + "/" + rel;
    ASSERT_EQ(std::system(("mkdir -p \"$(dirname " + p + ")\"").c_str()), 0);
    std::ofstream(p) << text;
  }
  // Writes REL through a temp file and a rename, as git does (a new inode).
  void replace(const std::string& rel, const std::string& text) const {
    write(rel + ".tmp", text);
    ASSERT_EQ(::rename((root_ + "/" + rel + ".tmp").c_str(), (root_ + "/" + rel).c_str()), 0);
  }
  void mkdir(const std::string& rel) const { ASSERT_EQ(std::system(("mkdir -p " + root_ + "/" + rel).c_str()), 0); }
  void link(const std::string& target, const std::string& rel) const {
    ASSERT_EQ(::symlink(target.c_str(), (root_ + "/" + rel).c_str()), 0) << rel;
  }
  bool exists(const std::string& rel) const {
    struct stat st;
    return lstat((root_ + "/" + rel).c_str(), &st) == 0;
  }
  std::string read(const std::string& rel) const {
    std::ifstream f(root_ + "/" + rel);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  // A git directory's minimum at REL: HEAD, objects/, refs/ (and a config when CONFIG is set).
  void git_dir(const std::string& rel, bool config = true) const {
    write(rel + "/HEAD", "ref: refs/heads/main\n");
    mkdir(rel + "/objects");
    mkdir(rel + "/refs/heads");
    if (config) write(rel + "/config", "[core]\n\trepositoryformatversion = 0\n");
  }
  // Makes ctime of everything so far older than the coming before(): the kernel's coarse clock
  // must move on.
  static void tick() { usleep(20'000); }
  // The paths of LEFT relative to the root, sorted.
  std::vector<std::string> rel_paths(const std::vector<LeftBehind>& left) const {
    std::vector<std::string> paths;
    for (const auto& l : left) paths.push_back(l.path.rfind(root_, 0) == 0 ? l.path.substr(root_.size() + 1) : l.path);
    std::sort(paths.begin(), paths.end());
    return paths;
  }
  std::vector<std::string> after(const TreeWatch& w) const { return rel_paths(w.after()); }

  std::string root_;
  std::string index_dir_;
  Policy policy_;
};

using TreeFixture = TreeFixtureOf<>;
using Paths = std::vector<std::string>;

}  // namespace paddock::gate
