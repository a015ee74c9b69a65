// Escape suite, overlay jails after a run (issue 25, class 6): a run in an overlay workspace
// writes into the jail's upper directory, which the host's mount point never shows. The check
// after the run walks that directory with the workspace's paths: a split git directory, a hook, a
// protected name made there are moved aside and named; the host's git in that directory (where the
// files are) runs nothing. Overlays need namespaces (there is no fallback for them).
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

RunOpts jail_opts(const World& w) {
  RunOpts o = w.opts();
  o.env["PADDOCK_JAILS_DIR"] = w.root / "jails";
  o.env["GIT_CONFIG_NOSYSTEM"] = "1";
  return o;
}

// The split git directory of EscapeGit.SplitGitDirectory: HEAD, commondir and config.worktree in
// the workspace, objects, refs and a config with core.fsmonitor in store/.
constexpr const char* kSplit =
    "mkdir -p store/objects store/refs && "
    "printf '[core]\\n\\trepositoryformatversion = 1\\n\\tfsmonitor = \"touch %s; true\"\\n[extensions]\\n"
    "\\tworktreeConfig = true\\n' \"$MARK\" > store/config && echo 'ref: refs/heads/main' > HEAD && "
    "echo store > commondir && printf '[core]\\n\\tbare = false\\n\\tworktree = %s\\n' \"$PWD\" > config.worktree";

bool git_runs_it(const std::string& dir, const std::string& mark, const World& w) {
  unlink(mark.c_str());
  RunOpts o = w.opts();
  o.cwd = dir;
  o.env["GIT_CONFIG_NOSYSTEM"] = "1";
  o.unset = {"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"};
  run({"/bin/sh", "-c", "git status >/dev/null 2>&1; true"}, o);
  return exists(mark);
}

TEST(EscapeOverlay, TheUpperDirectoryIsCheckedAfterTheRun) {
  KTEST_REQUIRE_BINARIES();
  if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
  if (!user_namespaces_work()) GTEST_SKIP() << "overlay workspaces need user namespaces";
  {
    // Without paddock: the split directory makes the host's git run the planted command.
    World control;
    const std::string mark = control.root / "git-ran";
    RunOpts o = control.opts();
    o.env["MARK"] = mark;
    run({"/bin/sh", "-c", kSplit}, o);
    ASSERT_TRUE(git_runs_it(control.project, mark, control))
        << "the attack does not work even without paddock, so this test proves nothing";
  }
  World w;
  const std::string mark = w.root / "git-ran";
  auto c = w.paddock({"jail", "create", "ov", "--workspace", "overlay", "--source", w.project}, jail_opts(w));
  if (c.code != 0 && contains(c.err, "overlay")) GTEST_SKIP() << "this kernel cannot mount the overlay: " << c.err;
  ASSERT_EQ(c.code, 0) << describe(c);
  auto show = w.paddock({"jail", "show", "ov", "--json"}, jail_opts(w));
  std::string merged;
  for (const std::string& line : split_lines(show.out)) {
    const auto at = line.find("\"root\": \"");
    if (at != std::string::npos && contains(line, "/merged")) merged = line.substr(at + 9, line.rfind('"') - at - 9);
  }
  ASSERT_FALSE(merged.empty()) << describe(show);
  const std::string upper = merged.substr(0, merged.rfind('/')) + "/upper";

  auto p = w.paddock({"jail", "exec", "ov", "--", "/bin/sh", "-c",
                      "MARK=" + mark + "; " + kSplit + "; mkdir -p d/.vscode && echo '{}' > d/.vscode/tasks.json"},
                     jail_opts(w));
  EXPECT_EQ(p.code, 0) << describe(p);
  // Named as the workspace shows them, moved aside where they are.
  for (const char* rel : {"/HEAD", "/commondir", "/config.worktree", "/store/config", "/d/.vscode/tasks.json"}) {
    EXPECT_TRUE(contains(p.err, merged + rel)) << rel << "\n" << describe(p);
    EXPECT_FALSE(exists(upper + rel)) << rel;
  }
  EXPECT_FALSE(git_runs_it(upper, mark, w)) << "the host's git ran what the sandbox planted\n" << describe(p);
  // The source is untouched.
  EXPECT_FALSE(exists(w.project + "/HEAD"));
}

// Ordinary git in an overlay workspace over a repository: a new branch's HEAD (in the upper
// directory) belongs to the repository whose config is in the lower layer, and stays.
TEST(EscapeOverlay, OrdinaryGitInAnOverlayStays) {
  KTEST_REQUIRE_BINARIES();
  if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
  if (!user_namespaces_work()) GTEST_SKIP() << "overlay workspaces need user namespaces";
  World w;
  auto init = run({"/bin/sh", "-c", "git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init"},
                  jail_opts(w));
  ASSERT_EQ(init.code, 0) << describe(init);
  auto c = w.paddock({"jail", "create", "ov", "--workspace", "overlay", "--source", w.project}, jail_opts(w));
  if (c.code != 0 && contains(c.err, "overlay")) GTEST_SKIP() << "this kernel cannot mount the overlay: " << c.err;
  ASSERT_EQ(c.code, 0) << describe(c);
  auto p = w.paddock({"jail", "exec", "ov", "--", "/bin/sh", "-c",
                      "set -e; git checkout -q -b topic; echo x > f; git add f; git -c user.email=t@t -c user.name=t "
                      "commit -q -m one"},
                     jail_opts(w));
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(contains(p.err, "left behind")) << describe(p);
  auto q = w.paddock({"jail", "exec", "ov", "--", "/bin/sh", "-c", "git rev-parse --abbrev-ref HEAD"}, jail_opts(w));
  EXPECT_EQ(q.out, "topic\n") << describe(q);
}

}  // namespace
}  // namespace ktest
