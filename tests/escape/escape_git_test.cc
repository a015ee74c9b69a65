// Escape suite, git (issue 12, class 1): the sandbox tries to make the host's next git command run
// a program of its choosing — by replacing the repository it works in, redirecting git from
// inside .git, planting a .git file or a bare repository, or nesting a repository git enters.
// Each attack is first run on the host without paddock, where the host's `git status` (or
// checkout) must run the planted command — so the test can fail —, then inside paddock, with
// namespaces and in the fallback; afterwards the host's git must run nothing, and what the run
// left is named with its path.
#include <unistd.h>

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "helpers/test_util.h"

namespace ktest {
namespace {

class EscapeGit : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (paddock_bin().empty() || probe_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set";
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
  }
  bool fallback() const { return GetParam(); }

  static RunOpts host_opts(const World& w) {
    RunOpts o = w.opts();
    o.env["GIT_CONFIG_NOSYSTEM"] = "1";
    o.unset = {"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"};
    return o;
  }
  static std::string marker(const World& w) { return w.root / "git-ran"; }

  // A repository with one commit in W's project, made on the host.
  static void make_repo(const World& w) {
    auto r = run({"/bin/sh", "-c",
                  "git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init"},
                 host_opts(w));
    ASSERT_EQ(r.code, 0) << describe(r);
  }

  // Runs the host-side git command GIT (a shell line) in W's project; true when the planted
  // command ran.
  static bool host_git_runs_it(const World& w, const std::string& git) {
    unlink(marker(w).c_str());
    run({"/bin/sh", "-c", git + " >/dev/null 2>&1; true"}, host_opts(w));
    return exists(marker(w));
  }

  // ATTACK (shell code, $MARK is the marker's path) run on the host: GIT must then run it.
  // Run inside paddock: GIT must run nothing, and paddock's stderr must name every path in LEFT
  // that exists afterwards (what it moved aside).
  void check(const std::string& attack, const std::string& git, bool with_repo) {
    check_with(attack, git, [&](const World& w) {
      if (with_repo) make_repo(w);
    });
  }
  // The same, with SETUP(world) preparing the project on the host before the attack.
  void check_with(const std::string& attack, const std::string& git, const std::function<void(const World&)>& setup) {
    const std::string script = "set +e; " + attack;
    {
      World control;
      setup(control);
      RunOpts o = host_opts(control);
      o.env["MARK"] = marker(control);
      auto direct = run({"/bin/sh", "-c", script}, o);
      ASSERT_TRUE(host_git_runs_it(control, git))
          << "the attack does not work even without paddock, so this test proves nothing\n"
          << describe(direct);
    }
    world_ = std::make_unique<World>();  // kept until the test ends: its checks look at the files
    World& w = *world_;
    setup(w);
    RunOpts o = w.opts();
    if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    // The marker's path, as the attack writes it into the config: outside anything the sandbox sees.
    auto p = w.paddock({"run", "--", "/bin/sh", "-c", "MARK=" + marker(w) + "; " + script}, o);
    EXPECT_FALSE(host_git_runs_it(w, git)) << "the host's git ran what the sandbox planted\n" << describe(p);
    last_ = p;
    last_project_ = w.project;
  }
  std::unique_ptr<World> world_;
  Proc last_;
  std::string last_project_;
};

// Plants core.fsmonitor in a git directory DIR made by the attack (HEAD, objects, refs, config).
std::string fake_git_dir(const std::string& dir) {
  return "mkdir -p " + dir + "/objects " + dir + "/refs/heads && echo 'ref: refs/heads/main' > " + dir +
         "/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch %s; true\"\\n' \"$MARK\" > " +
         dir + "/config; ";
}

// The project's .git renamed away, or removed, and rebuilt with a config of the sandbox's.
TEST_P(EscapeGit, ReplaceTheRepository) {
  check("mv .git .git.old || rm -rf .git; " + fake_git_dir(".git"), "git status", true);
  if (fallback()) {
    EXPECT_TRUE(contains(last_.err, "/.git/config")) << describe(last_);
    EXPECT_TRUE(contains(last_.err, "control directory was replaced or moved")) << describe(last_);
  } else {
    // Held in place: a mount point cannot be renamed or removed.
    EXPECT_FALSE(exists(last_project_ + "/.git.old")) << describe(last_);
    EXPECT_TRUE(exists(last_project_ + "/.git/config")) << describe(last_);
  }
}

// The existing config rewritten in place (read-only with namespaces; in the fallback moved aside).
TEST_P(EscapeGit, RewriteTheConfig) {
  check("printf '[core]\\n\\tfsmonitor = \"touch %s; true\"\\n' \"$MARK\" >> .git/config", "git status", true);
  if (fallback()) EXPECT_TRUE(contains(last_.err, "/.git/config")) << describe(last_);
}

// .git/commondir sends git to a repository the sandbox made, config and all.
TEST_P(EscapeGit, CommondirRedirect) {
  check(fake_git_dir("evil") + "echo \"$PWD/evil\" > .git/commondir", "git status", true);
  EXPECT_TRUE(contains(last_.err, "/.git/commondir")) << describe(last_);
}

// A hook added (read-only with namespaces; in the fallback the hooks directory is moved aside).
TEST_P(EscapeGit, AddAHook) {
  check("printf '#!/bin/sh\\ntouch %s\\n' \"$MARK\" > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout",
        "git checkout -q -b other", true);
}

// A project that had no repository gets a .git file naming one the sandbox made.
TEST_P(EscapeGit, GitFileInAProjectWithoutOne) {
  check(fake_git_dir("elsewhere") + "echo \"gitdir: $PWD/elsewhere\" > .git", "git status", false);
  EXPECT_TRUE(contains(last_.err, "/proj/.git")) << describe(last_);
}

// A project that had no repository becomes a bare repository itself (HEAD, objects, refs), one
// that names a work tree, so that `git status` there works and starts the fsmonitor.
TEST_P(EscapeGit, ProjectBecomesABareRepository) {
  check(fake_git_dir(".") + "printf '\tbare = false\n\tworktree = %s\n' \"$PWD\" >> config", "git status", false);
  EXPECT_TRUE(contains(last_.err, "/proj/config")) << describe(last_);
}

// A nested repository the root's index points at (a gitlink): `git status` at the root enters it.
TEST_P(EscapeGit, NestedRepositoryThroughTheIndex) {
  check("mkdir sub && cd sub && git init -q && git config core.fsmonitor \"touch $MARK; true\" && "
        "git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x && cd .. && "
        "git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub",
        "git status", true);
  EXPECT_TRUE(contains(last_.err, "/sub/.git/config")) << describe(last_);
}

// A submodule whose git directory lives in .git/modules, with its own config.
TEST_P(EscapeGit, SubmoduleGitDirectory) {
  check(fake_git_dir(".git/modules/lib") + "mkdir lib && echo 'gitdir: ../.git/modules/lib' > lib/.git && "
            "printf '[core]\\n\\tworktree = ../../../lib\\n\\tfsmonitor = \"touch %s; true\"\\n' \"$MARK\" > "
            ".git/modules/lib/config && git update-index --add --cacheinfo "
            "160000,0123456789012345678901234567890123456789,lib",
        "git status", true);
  EXPECT_TRUE(contains(last_.err, "/.git/modules/lib/config")) << describe(last_);
}

// Issue 25, class 2: a split git directory — HEAD, commondir and a config.worktree naming the
// work tree in the project, objects, refs and the config (with core.fsmonitor, and
// extensions.worktreeConfig so that git reads config.worktree) in another directory. No single
// directory has a repository's shape; git's rule (commondir) assembles one.
constexpr const char* kSplitGitDir =
    "mkdir -p store/objects store/refs && "
    "printf '[core]\\n\\trepositoryformatversion = 1\\n\\tfsmonitor = \"touch %s; true\"\\n[extensions]\\n"
    "\\tworktreeConfig = true\\n' \"$MARK\" > store/config && echo 'ref: refs/heads/main' > HEAD && "
    "echo store > commondir && printf '[core]\\n\\tbare = false\\n\\tworktree = %s\\n' \"$PWD\" > config.worktree; ";

TEST_P(EscapeGit, SplitGitDirectory) {
  check(kSplitGitDir, "git status", false);
  EXPECT_TRUE(contains(last_.err, last_project_ + "/commondir")) << describe(last_);
  EXPECT_TRUE(contains(last_.err, last_project_ + "/store/config")) << describe(last_);
}

// The same in a subdirectory of a repository: `git status` there finds it before the project's.
TEST_P(EscapeGit, SplitGitDirectoryInASubdirectory) {
  check(std::string("mkdir sub && cd sub && ") + kSplitGitDir, "cd sub && git status", true);
  EXPECT_TRUE(contains(last_.err, last_project_ + "/sub/HEAD")) << describe(last_);
}

// A bare repository in a subdirectory, naming a work tree.
TEST_P(EscapeGit, BareRepositoryInASubdirectory) {
  check("mkdir sub && cd sub && " + fake_git_dir(".") + "printf '\tbare = false\n\tworktree = %s\n' \"$PWD\" >> config",
        "cd sub && git status", true);
  EXPECT_TRUE(contains(last_.err, last_project_ + "/sub/config")) << describe(last_);
}

// Ordinary git inside a run: a new branch (HEAD rewritten through a rename), a commit, a
// checkout back. The repository stays the user's: nothing is moved aside, and the host's git
// sees the run's branch and commit.
TEST_P(EscapeGit, OrdinaryGitUseStays) {
  World w;
  make_repo(w);
  RunOpts o = w.opts();
  if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  auto p = w.paddock({"run", "--", "/bin/sh", "-c",
                      "set -e; git checkout -q -b topic; echo x > f; git add f; "
                      "git -c user.email=t@t -c user.name=t commit -q -m one; git checkout -q -b topic2"},
                     o);
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(contains(p.err, "left behind")) << describe(p);
  EXPECT_FALSE(contains(p.err, "/.git/HEAD")) << describe(p);
  auto r = run({"/bin/sh", "-c", "git rev-parse --abbrev-ref HEAD && git log --oneline | wc -l"}, host_opts(w));
  EXPECT_EQ(r.out, "topic2\n2\n") << describe(r);
}

// Issue 26, item 11, and class 2: the git directories of a linked worktree the user made before
// the run (.git/worktrees/wt). Its commondir sent to a repository of the run's...
TEST_P(EscapeGit, LinkedWorktreeCommondir) {
  auto with_worktree = [](const World& w) {
    make_repo(w);
    auto r = run({"/bin/sh", "-c", "git worktree add -q wt"}, host_opts(w));
    ASSERT_EQ(r.code, 0) << describe(r);
  };
  check_with(fake_git_dir("evil") + "echo \"$PWD/evil\" > .git/worktrees/wt/commondir", "cd wt && git status", with_worktree);
  EXPECT_TRUE(contains(last_.err, last_project_ + "/.git/worktrees/wt/commondir")) << describe(last_);
  // ...is put back: the worktree still works on the host.
  auto r = run({"/bin/sh", "-c", "cd wt && git status --short && git rev-parse --git-common-dir"}, host_opts(*world_));
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, last_project_ + "/.git\n")) << describe(r);
}

// ...a config.worktree written for it (the repository reads them: extensions.worktreeConfig)...
TEST_P(EscapeGit, LinkedWorktreeConfigWorktree) {
  auto with_worktree = [](const World& w) {
    make_repo(w);
    auto r = run({"/bin/sh", "-c", "git config extensions.worktreeConfig true && git worktree add -q wt"}, host_opts(w));
    ASSERT_EQ(r.code, 0) << describe(r);
  };
  check_with("printf '[core]\\n\\tfsmonitor = \"touch %s; true\"\\n' \"$MARK\" > .git/worktrees/wt/config.worktree",
        "cd wt && git status", with_worktree);
  EXPECT_TRUE(contains(last_.err, last_project_ + "/.git/worktrees/wt/config.worktree")) << describe(last_);
}

// ...and its gitdir pointed nowhere: the host's `git worktree prune` (which `git gc` runs) would
// delete the worktree's git directory. Put back, the worktree survives the prune.
TEST_P(EscapeGit, LinkedWorktreeGitdir) {
  World control;
  make_repo(control);
  ASSERT_EQ(run({"/bin/sh", "-c", "git worktree add -q wt"}, host_opts(control)).code, 0);
  ASSERT_EQ(run({"/bin/sh", "-c", "echo /nowhere/.git > .git/worktrees/wt/gitdir && git worktree prune"},
                host_opts(control)).code, 0);
  ASSERT_FALSE(exists(control.project + "/.git/worktrees/wt"))
      << "the attack does not work even without paddock, so this test proves nothing";

  World w;
  make_repo(w);
  ASSERT_EQ(run({"/bin/sh", "-c", "git worktree add -q wt"}, host_opts(w)).code, 0);
  RunOpts o = w.opts();
  if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  auto p = w.paddock({"run", "--", "/bin/sh", "-c", "echo /nowhere/.git > .git/worktrees/wt/gitdir"}, o);
  EXPECT_TRUE(contains(p.err, w.project + "/.git/worktrees/wt/gitdir")) << describe(p);
  auto r = run({"/bin/sh", "-c", "git worktree prune && cd wt && git status --short"}, host_opts(w));
  EXPECT_EQ(r.code, 0) << describe(r) << describe(p);
  EXPECT_TRUE(exists(w.project + "/.git/worktrees/wt/HEAD")) << describe(p);
}

// The fallback's own .git/config (writable there: Landlock cannot take it away) rewritten by the
// run is put back as it was; the run's version is kept as config.paddock-rejected. With
// namespaces it is read-only and the write fails.
TEST_P(EscapeGit, TheProjectsConfigIsPutBack) {
  check("git config core.fsmonitor \"touch $MARK; true\"; git config user.name planted", "git status", true);
  const std::string config = read_file(last_project_ + "/.git/config");
  EXPECT_FALSE(contains(config, "fsmonitor")) << config;
  EXPECT_TRUE(contains(config, "repositoryformatversion")) << config;  // the user's config, not none
  if (fallback()) {
    EXPECT_TRUE(contains(read_file(last_project_ + "/.git/config.paddock-rejected"), "fsmonitor")) << describe(last_);
    EXPECT_TRUE(contains(last_.err, "put back")) << describe(last_);
  }
}

INSTANTIATE_TEST_SUITE_P(Escape, EscapeGit, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Namespaces"; });

}  // namespace
}  // namespace ktest

namespace ktest {
namespace {

// What the run left is named by the sandbox: a name with a terminal escape sequence, or bytes that
// are not UTF-8, must neither reach the terminal raw nor keep the report from being written.
TEST(EscapeGitNames, HostileNamesAreShownSafelyAndTheReportIsWritten) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string report = w.root / "run.json";
  auto p = w.paddock({"run", "--report", report, "--", "/bin/sh", "-c",
                      "d=$(printf 'x\\033[2J\\377y'); mkdir \"$d\" && echo 'gitdir: /elsewhere' > \"$d/.git\""});
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_EQ(p.err.find('\033'), std::string::npos) << "a raw escape byte reached stderr";
  EXPECT_TRUE(contains(p.err, "x\\x1b[2J")) << describe(p);
  const std::string r = read_file(report);
  ASSERT_FALSE(r.empty()) << "no report written\n" << describe(p);
  EXPECT_TRUE(contains(r, "\"left_behind\"")) << r;
  EXPECT_TRUE(contains(r, "/.git\"")) << r;
}

}  // namespace
}  // namespace ktest
