// UndoRecorder (paddock/undo.h) on a real temporary tree and store: a run recorded, what it
// reports, the checkpoint channel it adds to the run, and what it says when it cannot record.
#include <filesystem>

#include <gtest/gtest.h>

#include "paddock/undo.h"
#include "undo/checkpoint.h"
#include "undo/public_rig.h"

namespace paddock {
namespace {

using undo::rig::write;

// A run that may write the rig's project, and a context whose undo store lies in its TMP.
struct Rig : undo::rig::FaceRig {
  Policy policy = policy_for();
  HostContext ctx = context();
};

TEST(UndoRecorder, RecordsARunAndReportsItsSession) {
  Rig r;
  UndoRecordOptions o;
  o.enabled = true;
  UndoRecorder rec = UndoRecorder::begin(o, r.policy, r.ctx, {"agent", "--go"});
  write(r.project + "/a.txt", "two\n");
  write(r.project + "/b.txt", "new\n");
  UndoRecordReport rep = rec.finish();
  EXPECT_EQ(rep.incomplete, "");
  ASSERT_FALSE(rep.session.empty());
  EXPECT_TRUE(rep.has_snapshot);
  EXPECT_EQ(rep.changes, 2u);  // a.txt modified, b.txt added
  EXPECT_GT(rep.stored, 0u);   // their new contents
  EXPECT_EQ(rep.budget, kDefaultUndoBudget);
  EXPECT_EQ(rep.budget_refused, 0);
  EXPECT_TRUE(rep.unreadable.paths.empty());
  EXPECT_FALSE(rep.over_quota);

  auto store = UndoStore::open(r.ctx.state.undo_dir, false);
  ASSERT_TRUE(store) << store.error().describe();
  auto s = store->session(rep.session);
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(s->command, (std::vector<std::string>{"agent", "--go"}));
  EXPECT_EQ(s->roots, std::vector<std::string>{r.project});
  ASSERT_EQ(s->snapshots.size(), 2u);
  EXPECT_EQ(s->snapshots[0].label, "before run");
  EXPECT_EQ(s->snapshots[1].label, "after run");
}

TEST(UndoRecorder, ASmallStoreQuotaIsReported) {
  Rig r;
  UndoRecordOptions o;
  o.store_quota = 1;  // any object passes it
  UndoRecorder rec = UndoRecorder::begin(o, r.policy, r.ctx, {"x"});
  write(r.project + "/b.txt", "some content\n");
  UndoRecordReport rep = rec.finish();
  ASSERT_EQ(rep.incomplete, "");
  ASSERT_TRUE(rep.over_quota);
  EXPECT_GT(*rep.over_quota, 1u);
  EXPECT_EQ(rep.store_quota, 1u);
}

TEST(UndoRecorder, NothingWritableIsIncompleteAndOpensNoChannel) {
  Rig r;
  r.policy.paths.clear();
  UndoRecorder rec = UndoRecorder::begin({}, r.policy, r.ctx, {"x"});
  RunOptions opts;
  ASSERT_TRUE(rec.open_checkpoints(r.policy, opts));
  EXPECT_TRUE(opts.pass_fds.empty());
  EXPECT_TRUE(r.policy.env.set.empty());
  UndoRecordReport rep = rec.finish();
  EXPECT_EQ(rep.incomplete, "nothing to capture: the run has no writable directory");
  EXPECT_TRUE(rep.session.empty());
  EXPECT_FALSE(rep.has_snapshot);
  EXPECT_FALSE(std::filesystem::exists(r.ctx.state.undo_dir));  // no store made for nothing
}

TEST(UndoRecorder, AStoreThatCannotBeOpenedIsIncomplete) {
  Rig r;
  write(r.tmp.path() + "/paddock", "a file where the store's parent should be");
  UndoRecorder rec = UndoRecorder::begin({}, r.policy, r.ctx, {"x"});
  UndoRecordReport rep = rec.finish();
  EXPECT_NE(rep.incomplete, "");
  EXPECT_TRUE(rep.session.empty());
}

TEST(UndoRecorder, TheCheckpointChannelIsAddedToTheRunAndAnswers) {
  Rig r;
  UndoRecordOptions o;
  UndoRecorder rec = UndoRecorder::begin(o, r.policy, r.ctx, {"x"});
  RunOptions opts;
  auto opened = rec.open_checkpoints(r.policy, opts);
  ASSERT_TRUE(opened) << opened.error().describe();
  ASSERT_EQ(opts.pass_fds.size(), 1u);
  EXPECT_FALSE(opts.checkpoint_socket.empty());
  ASSERT_EQ(r.policy.env.set.size(), 1u);
  EXPECT_EQ(r.policy.env.set[0].first, undo::kCheckpointFdEnv);
  EXPECT_EQ(r.policy.env.set[0].second, std::to_string(opts.pass_fds[0]));
  write(r.project + "/b.txt", "asked for\n");
  auto answer = undo::ask_for_checkpoint(opts.pass_fds[0], "mid");
  ASSERT_TRUE(answer) << answer.error().describe();
  // "SESSION:1 N files read, T ms" (N: b.txt, and a.txt when it was written in the first
  // snapshot's clock tick: racily clean, read again).
  EXPECT_NE(answer->find(":1 "), std::string::npos) << *answer;
  EXPECT_NE(answer->find(" read, "), std::string::npos) << *answer;
  UndoRecordReport rep = rec.finish();
  EXPECT_EQ(rep.incomplete, "");
  EXPECT_EQ(rep.changes, 1u);
  EXPECT_EQ(answer->rfind(rep.session + ":1 ", 0), 0u) << *answer;
  auto store = UndoStore::open(r.ctx.state.undo_dir, false);
  ASSERT_TRUE(store);
  auto s = store->session(rep.session);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->snapshots.size(), 3u);
  EXPECT_EQ(s->snapshots[1].label, "mid");
}

TEST(UndoRecorder, CheckpointsPastTheBudgetAreRefusedAndCounted) {
  Rig r;
  UndoRecordOptions o;
  o.max_bytes = 0;  // no checkpoint may add anything
  UndoRecorder rec = UndoRecorder::begin(o, r.policy, r.ctx, {"x"});
  RunOptions opts;
  ASSERT_TRUE(rec.open_checkpoints(r.policy, opts));
  ASSERT_EQ(opts.pass_fds.size(), 1u);
  write(r.project + "/b.txt", "more than nothing\n");
  auto answer = undo::ask_for_checkpoint(opts.pass_fds[0], "too big");
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().message.rfind("refused: ", 0), 0u) << answer.error().message;
  UndoRecordReport rep = rec.finish();
  EXPECT_EQ(rep.incomplete, "");  // the last snapshot is always taken
  EXPECT_EQ(rep.budget_refused, 1);
  EXPECT_EQ(rep.budget, 0u);
  EXPECT_EQ(rep.changes, 1u);
}

}  // namespace
}  // namespace paddock
