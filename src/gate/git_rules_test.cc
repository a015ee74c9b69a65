// git_rules.h against the real git on this machine: each shape is made on disk, and git's own
// answer (`git rev-parse --absolute-git-dir` run in it, discovery stopped above it) must be ours.
#include "gate/git_rules.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "sys/unique_fd.h"

namespace paddock::gate::git {
namespace {

TEST(GitRules, HeadText) {
  EXPECT_TRUE(valid_head_text("ref: refs/heads/main\n"));
  EXPECT_TRUE(valid_head_text("ref:\t  refs/heads/main"));
  EXPECT_TRUE(valid_head_text("ref:refs/x"));
  EXPECT_TRUE(valid_head_text("0123456789abcdef0123456789ABCDEF01234567"));
  EXPECT_TRUE(valid_head_text("0123456789abcdef0123456789abcdef01234567 and whatever follows"));
  EXPECT_FALSE(valid_head_text("0123456789abcdef0123456789abcdef0123456"));
  EXPECT_FALSE(valid_head_text("ref: heads/main"));
  EXPECT_FALSE(valid_head_text(" ref: refs/heads/main"));
  EXPECT_FALSE(valid_head_text(""));
}

TEST(GitRules, GitfileText) {
  EXPECT_EQ(gitfile_target("gitdir: ../x\n"), "../x");
  EXPECT_EQ(gitfile_target("gitdir: /a b\r\n\n"), "/a b");
  EXPECT_EQ(gitfile_target("gitdir:../x"), std::nullopt);
  EXPECT_EQ(gitfile_target("gitdir: \n"), std::nullopt);
  EXPECT_EQ(gitfile_target("GITDIR: x"), std::nullopt);
}

TEST(GitRules, RebaseTodoCommands) {
  EXPECT_TRUE(todo_runs_commands("pick 1 a\nexec make\n"));
  EXPECT_TRUE(todo_runs_commands("  \tx make"));
  EXPECT_TRUE(todo_runs_commands("x\n"));
  EXPECT_FALSE(todo_runs_commands("pick 1 a\n# exec b\nreword 2 c\nxyz\n"));
}

class GitRulesVsGit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
    char tmpl[] = "/tmp/paddock-gitrules-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ASSERT_EQ(::mkdir((root_ + "/home").c_str(), 0700), 0);
  }
  void TearDown() override {
    if (!root_.empty()) {
      ASSERT_EQ(std::system(("rm -rf " + root_).c_str()), 0);
    }
  }
  void sh(const std::string& script) { ASSERT_EQ(std::system(("cd " + root_ + " && " + script).c_str()), 0) << script; }
  // What git takes for the git directory when run in DIR (nothing above it looked at), or "".
  std::string git_dir_of(const std::string& dir) const {
    const std::string cmd = "cd " + root_ + "/" + dir + " && HOME=" + root_ + "/home GIT_CONFIG_NOSYSTEM=1 " +
                            "GIT_CEILING_DIRECTORIES=" + root_ + " git rev-parse --absolute-git-dir 2>/dev/null";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      std::array<char, 512> buf;
      while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
      ::pclose(p);
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  bool ours(const std::string& dir) const {
    sys::UniqueFd d(::open((root_ + "/" + dir).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!d) return false;
    auto common = commondir_text(d.get());
    if (!common) return is_git_directory(d.get());
    if (common->empty()) return false;
    const std::string c = common->front() == '/' ? *common : root_ + "/" + dir + "/" + *common;
    sys::UniqueFd cd(::open(c.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return cd && is_git_directory(d.get(), cd.get());
  }
  // Git and we agree on whether DIR is a (bare) git directory, and that is EXPECTED.
  void agree(const std::string& dir, bool expected) {
    char real[PATH_MAX];
    ASSERT_NE(::realpath((root_ + "/" + dir).c_str(), real), nullptr);
    const bool git_says = git_dir_of(dir) == real;
    EXPECT_EQ(git_says, expected) << dir << ": git's own answer is not what the test expects";
    EXPECT_EQ(ours(dir), git_says) << dir << ": git_rules disagrees with git";
  }
  std::string root_;
};

TEST_F(GitRulesVsGit, BareShapes) {
  sh("mkdir -p a/objects a/refs && echo 'ref: refs/heads/main' > a/HEAD");
  agree("a", true);
  sh("mkdir -p b/objects b/refs && printf 'ref: \\t refs/heads/main' > b/HEAD");
  agree("b", true);
  sh("mkdir -p c/objects c/refs && echo 'ref: heads/main' > c/HEAD");
  agree("c", false);
  sh("mkdir -p d/objects d/refs && echo 0123456789abcdef0123456789abcdef01234567 > d/HEAD");
  agree("d", true);
  sh("mkdir -p e/objects e/refs && echo 0123456789abcdef0123456789abcdef0123456 > e/HEAD");
  agree("e", false);
  sh("mkdir -p f/objects f/refs && ln -s refs/heads/main f/HEAD");
  agree("f", true);
  sh("mkdir -p g/objects g/refs && ln -s ../x g/HEAD");
  agree("g", false);
  sh("mkdir -p h/refs && echo 'ref: refs/heads/main' > h/HEAD");
  agree("h", false);
  sh("mkdir -p i/objects i/refs i/HEAD");
  agree("i", false);
}

// A split git directory: HEAD and commondir in one directory, objects and refs in another.
TEST_F(GitRulesVsGit, SplitShapes) {
  sh("mkdir -p store/objects store/refs");
  sh("mkdir s1 && echo 'ref: refs/heads/main' > s1/HEAD && echo ../store > s1/commondir");
  agree("s1", true);
  sh("mkdir s2 && echo 'ref: refs/heads/main' > s2/HEAD && printf '../store\\r\\n' > s2/commondir");
  agree("s2", true);
  sh("mkdir s3 && echo 'ref: refs/heads/main' > s3/HEAD && echo \"$PWD/store\" > s3/commondir");
  agree("s3", true);
  sh("mkdir -p half/objects && mkdir s4 && echo 'ref: refs/heads/main' > s4/HEAD && echo ../half > s4/commondir");
  agree("s4", false);
  // objects/ and refs/ beside HEAD do not count once a commondir leads elsewhere.
  sh("mkdir -p s5/objects s5/refs && echo 'ref: refs/heads/main' > s5/HEAD && echo ../half > s5/commondir");
  agree("s5", false);
}

// A `.git` file: git follows "gitdir: " (with the space) relative to the file's directory.
TEST_F(GitRulesVsGit, GitFiles) {
  sh("mkdir -p store/objects store/refs && echo 'ref: refs/heads/main' > store/HEAD");
  sh("mkdir w1 && echo 'gitdir: ../store' > w1/.git");
  char real[PATH_MAX];
  ASSERT_NE(::realpath((root_ + "/store").c_str(), real), nullptr);
  EXPECT_EQ(git_dir_of("w1"), real);
  EXPECT_EQ(gitfile_target(std::string("gitdir: ../store\n")), "../store");
  sh("mkdir w2 && echo 'gitdir:../store' > w2/.git");
  EXPECT_EQ(git_dir_of("w2"), "");
  EXPECT_EQ(gitfile_target(std::string("gitdir:../store\n")), std::nullopt);
}

}  // namespace
}  // namespace paddock::gate::git
