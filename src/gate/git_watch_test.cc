// The after-run walk's git rules (git_watch.h), on real files: what git would find after a run
// is moved aside; ordinary git use in the user's repository is left alone.
#include "gate/git_watch.h"

#include <fcntl.h>

#include "gate/tree_fixture.h"

namespace paddock::gate {
namespace {

using GitWatchTest = TreeFixtureOf<WalkParam>;

TEST_P(GitWatchTest, WhatExistedBeforeIsLeftAlone) {
  write(".git/config", "[core]\n");
  write(".git/hooks/pre-commit", "#!/bin/sh\n");
  write(".git/HEAD", "ref: refs/heads/main\n");
  write("vendor/lib/.git", "gitdir: ../../.git/modules/lib\n");
  tick();
  TreeWatch w = watch();
  write("src/main.c", "int main;\n");  // ordinary work
  write(".git/index", "x");
  EXPECT_EQ(after(w), Paths{});
  EXPECT_TRUE(exists(".git/config"));
}

TEST_P(GitWatchTest, ControlFilesChangedOrCreatedAreMovedAside) {
  write(".git/config", "[core]\n");
  write(".git/HEAD", "ref: refs/heads/main\n");
  write(".git/hooks/pre-commit", "#!/bin/sh\n");
  tick();
  TreeWatch w = watch();
  write(".git/hooks/pre-commit", "#!/bin/sh\nevil\n");    // an existing hook edited
  write("deep/er/.git", "gitdir: /elsewhere\n");          // a .git file anywhere
  write("x/.git/modules/a/b/config", "[core]\n");        // a submodule's git dir, '/' in its name
  write("x/.git/modules/a/b/HEAD", "ref: refs/heads/main\n");
  auto left = w.after();
  EXPECT_EQ(rel_paths(left), (Paths{".git/hooks/pre-commit", "deep/er/.git", "x/.git/modules/a/b/config"}));
  EXPECT_FALSE(exists("deep/er/.git"));
  for (const auto& l : left) EXPECT_NE(l.action.find("moved aside to "), std::string::npos) << l.action;
}

// A bare repository anywhere: its config, and its HEAD (a repository the run made).
TEST_P(GitWatchTest, ABareRepositoryAnywhere) {
  tick();
  TreeWatch w = watch();
  git_dir("b");
  write("c/config", "[core]\n");  // no HEAD/objects/refs: not a repository to git
  EXPECT_EQ(after(w), (Paths{"b/HEAD", "b/config"}));
  EXPECT_TRUE(exists("b/HEAD.paddock-quarantine"));
  EXPECT_TRUE(exists("c/config"));
}

// The split git directory git finds and the old shape test did not: HEAD, commondir and
// config.worktree in one directory, objects, refs and the config in another (issue 25, class 2).
TEST_P(GitWatchTest, ASplitGitDirectoryIsFoundWithItsCommonDirectory) {
  tick();
  TreeWatch w = watch();
  write("HEAD", "ref: refs/heads/main\n");
  write("commondir", "store\r\n");  // git cuts CR and LF
  write("config.worktree", "[core]\n\tworktree = /x\n");
  mkdir("store/objects");
  mkdir("store/refs");
  write("store/config", "[core]\n\tfsmonitor = evil\n[extensions]\n\tworktreeConfig = true\n");
  EXPECT_EQ(after(w), (Paths{"HEAD", "commondir", "config.worktree", "store/config"}));
}

// A commondir that leads back to its own directory ("."): its config is still judged.
TEST_P(GitWatchTest, ACommondirLeadingToItselfIsItsOwnCommonDirectory) {
  tick();
  TreeWatch w = watch();
  git_dir("r");
  write("r/commondir", ".\n");
  EXPECT_EQ(after(w), (Paths{"r/HEAD", "r/commondir", "r/config"}));
}

// A commondir leading out of the writable areas: what is there was not the run's and stays.
TEST_P(GitWatchTest, ACommonDirectoryOutsideTheAreasIsNotTouched) {
  char tmpl[] = "/tmp/paddock-gate-outside-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string outside = tmpl;
  ASSERT_EQ(std::system(("mkdir -p " + outside + "/objects " + outside + "/refs && echo x > " + outside + "/config").c_str()), 0);
  tick();
  TreeWatch w = watch();
  ASSERT_EQ(std::system(("echo y > " + outside + "/config").c_str()), 0);  // the host's, in the meantime
  write("r/HEAD", "ref: refs/heads/main\n");
  write("r/commondir", outside + "\n");
  EXPECT_EQ(after(w), (Paths{"r/HEAD", "r/commondir"}));
  struct stat st;
  EXPECT_EQ(lstat((outside + "/config").c_str(), &st), 0);
  ASSERT_EQ(std::system(("rm -rf " + outside).c_str()), 0);
}

// Ordinary git in the user's repository rewrites .git/HEAD through a rename (`git checkout -b`),
// in a nested repository and a linked worktree too: the branch pointer of a repository whose
// config was there before the run stays.
TEST_P(GitWatchTest, TheHeadOfARepositoryThatWasThereStays) {
  git_dir(".git");
  git_dir("vendor/lib/.git");
  git_dir(".git/worktrees/wt", false);
  write(".git/worktrees/wt/commondir", "../..\n");
  write(".git/worktrees/wt/gitdir", root_ + "/wt/.git\n");
  tick();
  TreeWatch w = watch();
  replace(".git/HEAD", "ref: refs/heads/topic\n");
  replace("vendor/lib/.git/HEAD", "0123456789012345678901234567890123456789\n");
  replace(".git/worktrees/wt/HEAD", "ref: refs/heads/other\n");
  EXPECT_EQ(after(w), Paths{});
}

// A HEAD of a repository whose config the run wrote (or that has none) is the run's repository.
TEST_P(GitWatchTest, TheHeadOfARepositoryTheRunMadeIsMovedAside) {
  git_dir("a", false);  // a repository without a config, from before the run
  tick();
  TreeWatch w = watch();
  replace("a/HEAD", "ref: refs/heads/x\n");
  git_dir("n/.git");
  EXPECT_EQ(after(w), (Paths{"a/HEAD", "n/.git/HEAD", "n/.git/config"}));
}

// Files named HEAD that are no git directory's (no objects/refs; not a valid HEAD) are data.
TEST_P(GitWatchTest, AHeadThatMakesNoRepositoryIsLeftAlone) {
  tick();
  TreeWatch w = watch();
  write("docs/HEAD", "the head of the document\n");
  mkdir("docs/objects");
  mkdir("docs/refs");
  write("logs/HEAD", "0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 x\n");
  mkdir("logs/refs/heads");  // a reflog directory's shape: HEAD and refs/, no objects/
  EXPECT_EQ(after(w), Paths{});
}

// A .git file from before the run is followed: the git directory it names (here where the walk
// would not go by itself) is judged.
TEST_P(GitWatchTest, AGitFileThatWasThereIsFollowed) {
  git_dir(".git");
  git_dir(".git/elsewhere/lib");
  write("lib/.git", "gitdir: ../.git/elsewhere/lib\n");
  tick();
  TreeWatch w = watch();
  write(".git/elsewhere/lib/config", "[core]\n\tfsmonitor = evil\n");
  EXPECT_EQ(after(w), (Paths{".git/elsewhere/lib/config"}));
}

TEST_P(GitWatchTest, ASymlinkedGitDirectoryThatWasThereIsFollowed) {
  git_dir(".git/store");  // where the walk would not go by itself
  mkdir("p");
  link("../.git/store", "p/.git");
  tick();
  TreeWatch w = watch();
  write(".git/store/hooks/post-checkout", "#!/bin/sh\n");
  EXPECT_EQ(after(w), (Paths{".git/store/hooks"}));
}

// Issue 26, item 11: the git directories of linked worktrees (.git/worktrees/*): a commondir, a
// gitdir or a config.worktree the run wrote is moved aside.
TEST_P(GitWatchTest, LinkedWorktreesGitDirectories) {
  git_dir(".git");
  for (const char* wt : {"a", "b", "c"}) {
    const std::string d = std::string(".git/worktrees/") + wt;
    git_dir(d, false);
    write(d + "/commondir", "../..\n");
    write(d + "/gitdir", root_ + "/" + wt + "/.git\n");
  }
  tick();
  TreeWatch w = watch();
  write(".git/worktrees/a/commondir", root_ + "/evil\n");
  replace(".git/worktrees/b/gitdir", "/nowhere/.git\n");
  write(".git/worktrees/c/config.worktree", "[core]\n\tfsmonitor = evil\n");
  EXPECT_EQ(after(w), (Paths{".git/worktrees/a/commondir", ".git/worktrees/b/gitdir", ".git/worktrees/c/config.worktree"}));
  // The user's own worktrees' files are put back (moved aside, the worktree would be broken); what
  // was not there is moved aside.
  EXPECT_EQ(read(".git/worktrees/a/commondir"), "../..\n");
  EXPECT_EQ(read(".git/worktrees/a/commondir.paddock-rejected"), root_ + "/evil\n");
  EXPECT_EQ(read(".git/worktrees/b/gitdir"), root_ + "/b/.git\n");
  EXPECT_FALSE(exists(".git/worktrees/c/config.worktree"));
  EXPECT_TRUE(exists(".git/worktrees/c/config.worktree.paddock-quarantine"));
}

// In a repository made by the run, nothing is the user's: moved aside.
TEST_P(GitWatchTest, ANewLinkedWorktreesFilesAreMovedAside) {
  tick();
  TreeWatch w = watch();
  git_dir("n/.git");
  git_dir("n/.git/worktrees/x", false);
  write("n/.git/worktrees/x/commondir", "../..\n");
  write("n/.git/worktrees/x/gitdir", "/x/.git\n");
  EXPECT_EQ(after(w), (Paths{"n/.git/HEAD", "n/.git/config", "n/.git/worktrees/x/HEAD", "n/.git/worktrees/x/commondir",
                             "n/.git/worktrees/x/gitdir"}));
}

// Names git follows anywhere, outside any git directory too.
TEST_P(GitWatchTest, RedirectNamesAnywhere) {
  tick();
  TreeWatch w = watch();
  write("a/commondir", "x\n");
  write("b/gitdir", "x\n");
  write("c/config.worktree", "x\n");
  EXPECT_EQ(after(w), (Paths{"a/commondir", "b/gitdir", "c/config.worktree"}));
}

// A rebase whose instruction sheet the run wrote with a command git runs on --continue.
TEST_P(GitWatchTest, ARebaseTodoWithExecLines) {
  git_dir(".git");
  write(".git/rebase-merge/git-rebase-todo", "pick 0123456 one\n");
  tick();
  TreeWatch w = watch();
  write(".git/rebase-merge/git-rebase-todo", "pick 0123456 one\n  x touch /tmp/evil\n");
  EXPECT_EQ(after(w), (Paths{".git/rebase-merge/git-rebase-todo"}));
  write(".git/rebase-merge/git-rebase-todo", "pick 0123456 one\nreword 789abcd two\n");  // git's own rewriting
  TreeWatch w2 = watch();
  write(".git/rebase-merge/git-rebase-todo", "pick 0123456 one\n");
  EXPECT_EQ(after(w2), Paths{});
}

// Issue 25: the fallback's .git/config (writable there) changed by the run is put back as it was
// before; the run's version is kept as config.paddock-rejected. Removed, it is put back too.
TEST_P(GitWatchTest, TheProjectsOwnConfigIsPutBack) {
  git_dir(".git");
  write(".git/config", "[remote \"origin\"]\n\turl = git@host:me/p\n");
  ASSERT_EQ(::chmod((root_ + "/.git/config").c_str(), 0640), 0);
  tick();
  TreeWatch w = watch();
  write(".git/config", "[core]\n\tfsmonitor = evil\n");
  replace(".git/HEAD", "ref: refs/heads/topic\n");  // and a checkout: the branch pointer stays
  auto left = w.after();
  ASSERT_EQ(rel_paths(left), (Paths{".git/config"}));
  EXPECT_NE(left[0].action.find("the file from before the run put back"), std::string::npos) << left[0].action;
  EXPECT_NE(left[0].action.find(root_ + "/.git/config.paddock-rejected"), std::string::npos) << left[0].action;
  EXPECT_EQ(read(".git/config"), "[remote \"origin\"]\n\turl = git@host:me/p\n");
  EXPECT_EQ(read(".git/config.paddock-rejected"), "[core]\n\tfsmonitor = evil\n");
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/.git/config").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(read(".git/HEAD"), "ref: refs/heads/topic\n");

  TreeWatch again = watch();
  ASSERT_EQ(::unlink((root_ + "/.git/config").c_str()), 0);
  EXPECT_EQ(after(again), (Paths{".git/config"}));
  EXPECT_EQ(read(".git/config"), "[remote \"origin\"]\n\turl = git@host:me/p\n");
}

TEST_P(GitWatchTest, ASecondQuarantineDoesNotReplaceTheFirst) {
  tick();
  TreeWatch w = watch();
  write("r/.git", "gitdir: /one\n");
  ASSERT_EQ(w.after().size(), 1u);
  write("r/.git", "gitdir: /two\n");
  ASSERT_EQ(w.after().size(), 1u);
  EXPECT_TRUE(exists("r/.git.paddock-quarantine"));
  EXPECT_TRUE(exists("r/.git.paddock-quarantine.1"));
}

TEST_P(GitWatchTest, TooDeepToWalkItSaysSo) {
  std::string deep;
  for (int i = 0; i < 260; ++i) deep += "d/";
  tick();
  TreeWatch w = watch();
  write(deep + ".git", "gitdir: /elsewhere\n");
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, root_);
  EXPECT_NE(left[0].what.find("deeper than 256 levels"), std::string::npos) << left[0].what;
}

TEST_P(GitWatchTest, PastTheBudgetItSaysSo) {
  for (int i = 0; i < 10; ++i) write("d" + std::to_string(i) + "/f", "");
  tick();
  TreeWatch w = watch();
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

INSTANTIATE_TEST_SUITE_P(, GitWatchTest, ::testing::Values(Walk::Full, Walk::Indexed), walk_name);

}  // namespace
}  // namespace paddock::gate
