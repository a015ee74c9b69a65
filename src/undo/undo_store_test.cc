// UndoStore (paddock/undo.h) on a real temporary store: the sessions a command looks at, how a
// target is named, what changed, both restores, an interrupted restore, pruning, and the errors
// `paddock undo` prints from it.
#include <unistd.h>

#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "paddock/undo.h"
#include "undo/public_rig.h"

namespace paddock {
namespace {

using undo::rig::read;
using undo::rig::write;

// Runs recorded into the rig's store: each run() is one session of PROJECT (or of OTHER).
struct Rig : undo::rig::FaceRig {
  std::string other = tmp.path() + "/other";
  Rig() { std::filesystem::create_directory(other); }
  // A session of DIR whose run does WHAT; its id.
  std::string run(const std::function<void()>& what, const std::string& dir = {}) {
    UndoRecorder rec = UndoRecorder::begin({}, policy_for(dir), context(), {"run"});
    what();
    UndoRecordReport rep = rec.finish();
    EXPECT_EQ(rep.incomplete, "");
    return rep.session;
  }
  UndoStore open() {
    auto s = UndoStore::open(store_dir, false);
    EXPECT_TRUE(s) << s.error().describe();
    return std::move(*s);
  }
};

TEST(UndoStore, AnEmptyStoreSaysSoWithTheHintToRecord) {
  Rig r;
  auto store = UndoStore::open(r.store_dir, true);
  ASSERT_TRUE(store) << store.error().describe();
  EXPECT_EQ(store->dir(), r.store_dir);
  auto t = store->target("", 0, false, r.project, r.tmp.path());
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message, "the undo store has no session yet");
  EXPECT_EQ(t.error().where, r.store_dir);
  EXPECT_EQ(t.error().hint, "paddock run --undo -- COMMAND records one");
  auto in = store->sessions(true);
  ASSERT_TRUE(in);
  EXPECT_TRUE(in->sessions.empty());
  EXPECT_FALSE(in->project);
  auto pending = store->interrupted();
  ASSERT_TRUE(pending);
  EXPECT_FALSE(*pending);
  auto finished = store->finish_interrupted();
  ASSERT_TRUE(finished);
  EXPECT_FALSE(*finished);
}

TEST(UndoStore, AMissingStoreIsAnError) {
  Rig r;
  auto store = UndoStore::open(r.store_dir, false);
  ASSERT_FALSE(store);
}

TEST(UndoStore, TargetsAreNamedOrTheNewestOfTheProject) {
  Rig r;
  const std::string first = r.run([&] { write(r.project + "/b.txt", "b\n"); });
  const std::string second = r.run([&] { write(r.project + "/c.txt", "c\n"); });
  const std::string elsewhere = r.run([&] { write(r.other + "/x", "x\n"); }, r.other);
  UndoStore store = r.open();
  auto ids = store.session_ids();
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<std::string>{first, second, elsewhere}));  // oldest first

  auto named = store.target(first + ":1", 0, false, r.project, r.tmp.path());
  ASSERT_TRUE(named) << named.error().describe();
  EXPECT_EQ(named->session, first);
  EXPECT_EQ(named->n, 1);
  EXPECT_FALSE(named->newest);

  auto newest = store.target("", 0, false, r.project, r.tmp.path());
  ASSERT_TRUE(newest) << newest.error().describe();
  EXPECT_EQ(newest->session, second);  // not ELSEWHERE, newer but of another project
  EXPECT_EQ(newest->n, 0);
  EXPECT_TRUE(newest->newest);
  ASSERT_TRUE(newest->project);
  EXPECT_EQ(newest->project->dir, r.project);
  EXPECT_EQ(newest->roots, std::vector<std::string>{r.project});

  auto any = store.target(":2", -1, true);
  ASSERT_TRUE(any);
  EXPECT_EQ(any->session, elsewhere);
  EXPECT_EQ(any->n, 2);
  EXPECT_FALSE(any->project);

  auto bad = store.target(first + ":x", 0, false);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "not a snapshot number: \"x\"");
  EXPECT_EQ(bad.error().where, first + ":x");

  // A project without sessions: what the store holds is said.
  const std::string none = r.tmp.path() + "/none";
  std::filesystem::create_directory(none);
  auto empty = store.target("", 0, false, none, r.tmp.path());
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "no undo session of " + none + " (the store holds 3 of other projects)");
  EXPECT_EQ(empty.error().hint, "cd into the project, name the session, or --all for the newest of every project's");

  auto in = store.sessions(false, r.project, r.tmp.path());
  ASSERT_TRUE(in);
  EXPECT_EQ(in->in_store, 3u);
  ASSERT_EQ(in->sessions.size(), 2u);  // oldest first
  EXPECT_EQ(in->sessions[0].id, first);
  EXPECT_EQ(in->sessions[1].id, second);
}

TEST(UndoStore, AnUnreadableSessionIsLeftOutAndNamed) {
  Rig r;
  const std::string id = r.run([&] { write(r.project + "/b.txt", "b\n"); });
  write(r.store_dir + "/sessions/" + id + "/session.json", "{ torn");
  UndoStore store = r.open();
  auto in = store.sessions(true);
  ASSERT_TRUE(in) << in.error().describe();
  EXPECT_TRUE(in->sessions.empty());
  ASSERT_EQ(in->unreadable.size(), 1u);
  EXPECT_EQ(in->in_store, 1u);
}

TEST(UndoStore, ChangesAndBothRestores) {
  Rig r;
  const std::string id = r.run([&] {
    write(r.project + "/a.txt", "two\n");
    write(r.project + "/b.txt", "new\n");
  });
  UndoStore store = r.open();
  auto s = store.session(id);
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_EQ(s->last(), 1);
  auto ch = store.changes(*s, 0, 1);
  ASSERT_TRUE(ch) << ch.error().describe();
  ASSERT_EQ(ch->size(), 2u);
  EXPECT_EQ((*ch)[0].kind, UndoChange::Kind::Modified);
  EXPECT_EQ((*ch)[0].full_path(), r.project + "/a.txt");
  EXPECT_EQ(read((*ch)[0].old_object), "one\n");  // the objects hold each side's content
  EXPECT_EQ(read((*ch)[0].new_object), "two\n");
  EXPECT_EQ((*ch)[1].kind, UndoChange::Kind::Added);
  EXPECT_EQ((*ch)[1].path, "b.txt");
  EXPECT_EQ((*ch)[1].old_object, "");
  EXPECT_EQ(to_string((*ch)[1].kind), "added");
  auto held = store.held_back(*s, 1);
  ASSERT_TRUE(held);
  EXPECT_TRUE(held->empty());
  EXPECT_TRUE(store.unreadable(*s).paths.empty());
  EXPECT_EQ(store.unreadable(*s).n, 1);

  UndoRestoreRequest req;
  req.session = id;
  req.target = 0;
  req.dry_run = true;
  auto plan = store.restore(req);
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_FALSE(plan->applied);
  EXPECT_EQ(plan->changes.size(), 2u);
  EXPECT_EQ(read(r.project + "/a.txt"), "two\n");  // a plan writes nothing

  req.dry_run = false;
  auto done = store.restore(req);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_TRUE(done->applied);
  EXPECT_GE(done->before_snapshot, 2);
  EXPECT_EQ(read(r.project + "/a.txt"), "one\n");
  EXPECT_FALSE(std::filesystem::exists(r.project + "/b.txt"));

  // ScopeState back to the snapshot the restore took first: the run's tree again.
  UndoRestoreRequest back;
  back.session = id;
  back.target = done->before_snapshot;
  back.meaning = UndoRestoreMeaning::ScopeState;
  auto again = store.restore(back);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_TRUE(again->applied);
  EXPECT_EQ(read(r.project + "/a.txt"), "two\n");
  EXPECT_EQ(read(r.project + "/b.txt"), "new\n");
}

TEST(UndoStore, AnEditSinceTheLastSnapshotIsAConflict) {
  Rig r;
  const std::string id = r.run([&] { write(r.project + "/a.txt", "two\n"); });
  write(r.project + "/a.txt", "edited by hand\n");
  UndoStore store = r.open();
  UndoRestoreRequest req;
  req.session = id;
  auto o = store.restore(req);
  ASSERT_TRUE(o) << o.error().describe();
  EXPECT_FALSE(o->applied);
  EXPECT_EQ(o->conflicts, std::vector<std::string>{r.project + "/a.txt"});
  EXPECT_EQ(read(r.project + "/a.txt"), "edited by hand\n");
}

TEST(UndoStore, WhatTheGateNamesIsHeldBack) {
  Rig r;
  const std::string id = r.run([&] {
    std::filesystem::create_directories(r.project + "/.git/hooks");
    write(r.project + "/.git/hooks/pre-commit", "#!/bin/sh\necho planted\n");
  });
  UndoStore store = r.open();
  auto s = store.session(id);
  ASSERT_TRUE(s);
  auto held = store.held_back(*s, 1);
  ASSERT_TRUE(held) << held.error().describe();
  ASSERT_FALSE(held->empty());
  EXPECT_EQ(held->front().gate_class, "git");
  EXPECT_FALSE(held->front().why.empty());
  ASSERT_TRUE(held->front().type);
}

TEST(UndoStore, PruneRemovesTheOldestAndSaysWhatIsLeft) {
  Rig r;
  r.run([&] { write(r.project + "/b.txt", "b\n"); });
  const std::string kept = r.run([&] { write(r.project + "/c.txt", "c\n"); });
  UndoStore store = r.open();
  UndoPruneOptions o;
  o.keep = 1;
  auto rep = store.prune(o);
  ASSERT_TRUE(rep) << rep.error().describe();
  EXPECT_EQ(rep->removed, 1u);
  EXPECT_EQ(rep->left, 1u);
  EXPECT_EQ(rep->quota, kDefaultUndoStoreQuota);
  ASSERT_TRUE(rep->size);
  auto in = store.sessions(true);
  ASSERT_TRUE(in);
  ASSERT_EQ(in->sessions.size(), 1u);
  EXPECT_EQ(in->sessions[0].id, kept);

  o.keep = -1;
  o.quota = 0;  // the oldest go until nothing is stored
  rep = store.prune(o);
  ASSERT_TRUE(rep);
  EXPECT_EQ(rep->removed, 1u);
  EXPECT_EQ(rep->left, 0u);
}

TEST(UndoStore, PathArgumentsAreAbsoluteWithTheirParentsResolved) {
  Rig r;
  std::filesystem::create_symlink(r.project, r.tmp.path() + "/link");
  EXPECT_EQ(undo_path_argument(r.tmp.path() + "/link/a.txt"), r.project + "/a.txt");
  EXPECT_EQ(undo_path_argument(r.tmp.path() + "/link"), r.tmp.path() + "/link");  // never the last part
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(::chdir(r.project.c_str()), 0);
  EXPECT_EQ(undo_path_argument("sub/../a.txt"), r.project + "/a.txt");
  ASSERT_EQ(::chdir(cwd), 0);
}

}  // namespace
}  // namespace paddock
