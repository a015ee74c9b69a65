#include "gate/git_watch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace paddock::gate {
namespace {

class GitWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-gitwatch-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    policy_.paths.push_back(PathRule{root_, root_, Access::ReadWrite, {Origin::Kind::Flag, "--allow"}, false, {}});
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + root_).c_str()), 0); }
  void write(const std::string& rel, const std::string& text) {
    std::string p = root_ + "/" + rel;
    ASSERT_EQ(std::system(("mkdir -p \"$(dirname " + p + ")\"").c_str()), 0);
    std::ofstream(p) << text;
  }
  bool exists(const std::string& rel) const {
    struct stat st;
    return lstat((root_ + "/" + rel).c_str(), &st) == 0;
  }
  // Makes ctime of everything so far older than the coming before(): the kernel's coarse clock
  // must move on.
  static void tick() { usleep(20'000); }
  std::string root_;
  Policy policy_;
};

TEST_F(GitWatchTest, WhatExistedBeforeIsLeftAlone) {
  write(".git/config", "[core]\n");
  write(".git/hooks/pre-commit", "#!/bin/sh\n");
  write(".git/HEAD", "ref: refs/heads/main\n");
  write("vendor/lib/.git", "gitdir: ../../.git/modules/lib\n");
  tick();
  GitWatch w = GitWatch::before(policy_);
  write("src/main.c", "int main;\n");  // ordinary work
  write(".git/index", "x");
  EXPECT_TRUE(w.after().empty());
  EXPECT_TRUE(exists(".git/config"));
}

TEST_F(GitWatchTest, ControlFilesChangedOrCreatedAreMovedAside) {
  write(".git/config", "[core]\n");
  write(".git/HEAD", "ref: refs/heads/main\n");
  ASSERT_EQ(::mkdir((root_ + "/.git/hooks").c_str(), 0755), 0);
  write(".git/hooks/pre-commit", "#!/bin/sh\n");
  tick();
  GitWatch w = GitWatch::before(policy_);
  write(".git/config", "[core]\n\tfsmonitor = evil\n");  // rewritten in place
  write(".git/hooks/pre-commit", "#!/bin/sh\nevil\n");    // an existing hook edited
  write("deep/er/.git", "gitdir: /elsewhere\n");          // a .git file anywhere
  write("x/.git/modules/a/b/config", "[core]\n");        // a submodule's git dir, '/' in its name
  write("x/.git/modules/a/b/HEAD", "ref: refs/heads/main\n");
  auto left = w.after();
  std::vector<std::string> paths;
  for (const auto& l : left) paths.push_back(l.path.substr(root_.size()));
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"/.git/config", "/.git/hooks/pre-commit", "/deep/er/.git",
                                             "/x/.git/modules/a/b/config"}))
      << ::testing::PrintToString(paths);
  EXPECT_FALSE(exists(".git/config"));
  EXPECT_TRUE(exists(".git/config.paddock-quarantine"));
  EXPECT_FALSE(exists("deep/er/.git"));
  for (const auto& l : left) EXPECT_NE(l.action.find("moved aside to "), std::string::npos) << l.action;
}

TEST_F(GitWatchTest, ABareRepositoryShapeCounts) {
  tick();
  GitWatch w = GitWatch::before(policy_);
  write("b/HEAD", "ref: refs/heads/main\n");
  write("b/objects/.keep", "");
  write("b/refs/.keep", "");
  write("b/config", "[core]\n");
  write("c/config", "[core]\n");  // no HEAD/objects/refs: not a repository to git
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, root_ + "/b/config");
}

TEST_F(GitWatchTest, ASecondQuarantineDoesNotReplaceTheFirst) {
  tick();
  GitWatch w = GitWatch::before(policy_);
  write("r/.git", "gitdir: /one\n");
  ASSERT_EQ(w.after().size(), 1u);
  write("r/.git", "gitdir: /two\n");
  ASSERT_EQ(w.after().size(), 1u);
  EXPECT_TRUE(exists("r/.git.paddock-quarantine"));
  EXPECT_TRUE(exists("r/.git.paddock-quarantine.1"));
}

TEST_F(GitWatchTest, TooDeepToWalkItSaysSo) {
  std::string deep;
  for (int i = 0; i < 260; ++i) deep += "d/";
  tick();
  GitWatch w = GitWatch::before(policy_);
  write(deep + ".git", "gitdir: /elsewhere\n");
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, root_);
  EXPECT_NE(left[0].what.find("deeper than 256 levels"), std::string::npos) << left[0].what;
}

TEST_F(GitWatchTest, PastTheBudgetItSaysSo) {
  for (int i = 0; i < 10; ++i) write("d" + std::to_string(i) + "/f", "");
  tick();
  GitWatch w = GitWatch::before(policy_);
  auto left = w.after(5);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, root_);
  EXPECT_NE(left[0].what.find("not fully checked"), std::string::npos);
}

}  // namespace
}  // namespace paddock::gate

namespace paddock::gate {
namespace {

// The sandbox cannot keep a file in place by taking the names it would be moved to, or by a name
// too long to take a suffix.
TEST(MoveAside, NeitherTakenNamesNorALongNameKeepAFileInPlace) {
  char tmpl[] = "/tmp/paddock-moveaside-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto touch = [&](const std::string& n) { std::ofstream(dir + "/" + n) << "x"; };
  touch("config");
  touch("config.paddock-quarantine");
  for (int i = 1; i < 100; ++i) touch("config.paddock-quarantine." + std::to_string(i));
  const std::string long_name(250, 'h');
  touch(long_name);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string a = move_aside(fd, "config", dir + "/config", "git");
  EXPECT_EQ(a.rfind("moved aside to " + dir + "/.paddock-quarantine.", 0), 0u) << a;
  EXPECT_NE(::access((dir + "/config").c_str(), F_OK), 0);
  const std::string b = move_aside(fd, long_name, dir + "/" + long_name, "pi");
  EXPECT_EQ(b.rfind("moved aside to " + dir + "/.paddock-quarantine.", 0), 0u) << b;
  EXPECT_NE(::access((dir + "/" + long_name).c_str(), F_OK), 0);
  ::close(fd);
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace
}  // namespace paddock::gate
