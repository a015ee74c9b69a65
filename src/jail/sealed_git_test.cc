// paddock's own git on data a sandbox wrote (sealed_git.h), with the real git: what a work tree
// or a repository in it says about drivers and attributes changes nothing it runs or hashes.
#include "jail/sealed_git.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace paddock::jail {
namespace {

class SealedGitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
    char t[] = "/tmp/paddock-sealed-test-XXXXXX";
    dir_ = mkdtemp(t);
  }
  void TearDown() override {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  void write(const std::string& rel, const std::string& content) { std::ofstream(dir_ + "/" + rel) << content; }
  bool exists(const std::string& rel) const {
    struct stat st;
    return lstat((dir_ + "/" + rel).c_str(), &st) == 0;
  }
  std::string dir_;
};

TEST_F(SealedGitTest, AWorkTreesDriversAndAttributesRunNothingAndConvertNothing) {
  // The work tree is a repository whose config names a filter and diff driver, whose
  // .gitattributes and info/attributes pick them (and line-ending and encoding conversions) for
  // every file, and whose hooks directory has every hook.
  ASSERT_EQ(mkdir((dir_ + "/ws").c_str(), 0755), 0);
  ASSERT_EQ(std::system(("git init -q '" + dir_ + "/ws'").c_str()), 0);
  const std::string mark = dir_ + "/ran";
  const std::string cmd = "!touch " + mark + "; cat";
  for (const char* key : {"filter.x.clean", "filter.x.smudge", "filter.x.process", "diff.x.textconv", "diff.x.command",
                          "core.fsmonitor", "diff.external", "core.pager"})
    ASSERT_EQ(std::system(("git -C '" + dir_ + "/ws' config " + key + " '" + cmd + "'").c_str()), 0);
  write("ws/.gitattributes", "* filter=x diff=x text eol=crlf ident working-tree-encoding=UTF-16\n");
  write("ws/.git/info/attributes", "* filter=x diff=x\n");
  write("ws/f.txt", "line\n$Id$\n");
  ASSERT_EQ(mkdir((dir_ + "/priv").c_str(), 0700), 0);
  auto git = SealedGit::open(dir_ + "/priv/git", {});
  ASSERT_TRUE(git.ok()) << git.error().describe();
  const std::string index = dir_ + "/priv/index";
  auto add = git->ok({"add", "-A", "--", "."}, {.work_tree = dir_ + "/ws", .index = index});
  ASSERT_TRUE(add.ok()) << add.error().describe();
  auto tree = git->ok({"write-tree"}, {.index = index});
  ASSERT_TRUE(tree.ok()) << tree.error().describe();
  const std::string empty = "";
  auto none = git->ok({"mktree"}, {.input = &empty});
  ASSERT_TRUE(none.ok()) << none.error().describe();
  auto patch = git->ok({"diff-tree", "-p", none->substr(0, none->size() - 1), tree->substr(0, tree->size() - 1)});
  ASSERT_TRUE(patch.ok()) << patch.error().describe();
  EXPECT_FALSE(exists("ran")) << "a driver the work tree named ran";
  // The file as it is: no CRLF, no expanded $Id$, no UTF-16.
  auto blob = git->ok({"cat-file", "blob", tree->substr(0, tree->size() - 1) + ":f.txt"});
  ASSERT_TRUE(blob.ok()) << blob.error().describe();
  EXPECT_EQ(*blob, "line\n$Id$\n");
  EXPECT_NE(patch->find("+$Id$"), std::string::npos) << *patch;
}

TEST_F(SealedGitTest, NothingOfTheCallersEnvironmentReachesGit) {
  ASSERT_EQ(mkdir((dir_ + "/priv").c_str(), 0700), 0);
  auto git = SealedGit::open(dir_ + "/priv/git", {});
  ASSERT_TRUE(git.ok()) << git.error().describe();
  const std::string global = dir_ + "/global";
  write("global", "[core]\n\tpager = touch " + dir_ + "/ran\n[alias]\n\tx = !touch " + dir_ + "/ran\n");
  setenv("GIT_CONFIG_GLOBAL", global.c_str(), 1);
  setenv("GIT_DIR", "/nonexistent", 1);
  auto cfg = git->run({"config", "--show-origin", "--list"});
  unsetenv("GIT_CONFIG_GLOBAL");
  unsetenv("GIT_DIR");
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->status, 0) << cfg->err;
  EXPECT_EQ(cfg->out.find(global), std::string::npos) << cfg->out;
  EXPECT_EQ(cfg->out.find("file:" + dir_ + "/priv/git/config"), 0u) << "only paddock's own config is read:\n" << cfg->out;
}

TEST_F(SealedGitTest, ItsOwnFilesAreRewrittenEveryTime) {
  ASSERT_EQ(mkdir((dir_ + "/priv").c_str(), 0700), 0);
  ASSERT_TRUE(SealedGit::open(dir_ + "/priv/git", {}).ok());
  write("priv/git/config", "[core]\n\tfsmonitor = touch " + dir_ + "/ran\n");
  write("priv/git/info/attributes", "");
  auto git = SealedGit::open(dir_ + "/priv/git", {});
  ASSERT_TRUE(git.ok());
  auto v = git->ok({"config", "core.fsmonitor"});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "false\n");
}

TEST(ObjectName, FullNamesOnly) {
  EXPECT_TRUE(is_object_name(std::string(40, 'a')));
  EXPECT_TRUE(is_object_name(std::string(64, '0')));
  EXPECT_FALSE(is_object_name(std::string(39, 'a')));
  EXPECT_FALSE(is_object_name(std::string(40, 'A')));
  EXPECT_FALSE(is_object_name("ref: refs/heads/main"));
}

}  // namespace
}  // namespace paddock::jail
