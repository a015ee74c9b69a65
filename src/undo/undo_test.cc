// The undo engine on a fake tree (property-style), its formats, and the store on disk.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "undo/fake_rig.h"
#include "undo/fake_tree_fs.h"
#include "undo/manifest.h"
#include "undo/scan.h"
#include "undo/sha256.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock::undo {
namespace {

namespace fs = std::filesystem;
using namespace rig;

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  Sha256 h;  // in uneven pieces: the buffering is exercised
  for (std::size_t i = 0; i < million.size();) {
    std::size_t n = std::min<std::size_t>(1 + i % 97, million.size() - i);
    h.update(million.data() + i, n);
    i += n;
  }
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Manifest, RoundTripsOddNames) {
  Manifest m;
  RootManifest r;
  r.root = "/home/u/my proj";
  r.started_ns = 42;
  r.excludes = {{Exclude::Kind::Name, "node_modules", "default"}, {Exclude::Kind::Path, "a b/c", "--undo-exclude"}};
  FileStat st;
  st.type = EntryType::Dir;
  st.mode = 0755;
  r.entries.push_back({"", st, {}, {}});
  st.type = EntryType::Symlink;
  st.mode = 0777;
  r.entries.push_back({"link", st, {}, "../x y"});  // entries in path order ("link" < "sp ace")
  st.type = EntryType::File;
  st.mode = 04755;
  st.size = 3;
  r.entries.push_back({"sp ace\nnew\\line\t", st, sha256_hex("abc"), {}});
  m.roots.push_back(r);
  std::string text = serialize_manifest(m);
  auto back = parse_manifest(text, "t");
  ASSERT_TRUE(back) << back.error().describe();
  ASSERT_EQ(back->roots.size(), 1u);
  const auto& b = back->roots[0];
  EXPECT_EQ(b.root, r.root);
  EXPECT_EQ(b.started_ns, 42);
  ASSERT_EQ(b.entries.size(), 3u);
  EXPECT_EQ(b.entries[2].path, "sp ace\nnew\\line\t");
  EXPECT_EQ(b.entries[2].st.mode, 04755u);
  EXPECT_EQ(b.entries[1].target, "../x y");
  EXPECT_EQ(b.excludes[1].pattern, "a b/c");
}

TEST(Manifest, TornOrNewerOrUnsafeIsRefused) {
  Manifest m;
  m.roots.push_back({});
  m.roots[0].root = "/r";
  FileStat st;
  st.type = EntryType::File;
  m.roots[0].entries.push_back({"a", st, sha256_hex("x"), {}});
  std::string text = serialize_manifest(m);
  // Torn: every proper prefix is refused.
  for (std::size_t n = 0; n < text.size(); ++n) {
    EXPECT_FALSE(parse_manifest(text.substr(0, n), "t")) << n;
  }
  std::string newer = text;
  newer.replace(0, newer.find('\n'), "paddock-undo-manifest 99");
  auto r = parse_manifest(newer, "t");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("newer"), std::string::npos);
  std::string unsafe = text;
  unsafe.replace(unsafe.find(" a\n"), 3, " ../a\n");
  EXPECT_FALSE(parse_manifest(unsafe, "t"));
  // Out of path order (or twice the same path): refused, restores merge in that order.
  Manifest twice = m;
  twice.roots[0].entries.push_back(twice.roots[0].entries[0]);
  auto t2 = parse_manifest(serialize_manifest(twice), "t");
  ASSERT_FALSE(t2);
  EXPECT_NE(t2.error().message.find("out of order"), std::string::npos);
}

TEST(Undo, UnchangedFilesAreNotRead) {
  FakeRig rig;
  rig.tree->put_dir("src");
  for (int i = 0; i < 500; ++i) rig.tree->put_file("src/f" + std::to_string(i), "content " + std::to_string(i));
  rig.snap("before");
  rig.tree->files_opened = 0;
  rig.tree->put_file("src/f7", "changed");
  rig.tree->put_file("src/new", "new");
  auto r = rig.mgr->snapshot(rig.session, "after");
  ASSERT_TRUE(r);
  EXPECT_EQ(rig.tree->files_opened, 2);
  EXPECT_EQ(r->files_hashed, 2u);
  EXPECT_EQ(r->objects_new, 2u);
}

TEST(Undo, EveryKindOfChangeIsUndone) {
  FakeRig rig;
  rig.tree->put_dir("src");
  rig.tree->put_file("src/a.c", "int a;");
  rig.tree->put_file("src/run.sh", "#!/bin/sh", 0755);
  rig.tree->put_dir("empty");
  rig.tree->put_symlink("link", "src/a.c");
  rig.tree->put_dir("ro", 0555);
  rig.tree->put_file("ro/keep", "k", 0444);
  const std::string original = rig.tree->describe();
  rig.snap("before");
  rig.tree->put_file("src/a.c", "int a = 1;");       // modified
  rig.tree->chmod("src/run.sh", 0644);              // mode
  rig.tree->remove_tree("empty");                   // empty dir deleted
  rig.tree->remove_tree("link");
  rig.tree->put_symlink("link", "/etc/passwd");     // symlink retargeted
  rig.tree->put_file("added", "new file");          // added
  rig.tree->rename("src", "moved");                 // renamed directory
  rig.tree->put_symlink("src", "/outside");         // a symlink where the directory was
  rig.tree->chmod("ro", 0755);
  rig.snap("after");
  auto out = rig.restore(0);
  EXPECT_TRUE(out.applied);
  EXPECT_TRUE(out.conflicts.empty());
  EXPECT_EQ(rig.tree->describe(), original);
}

TEST(Undo, ExcludedEntriesAreNeverTouched) {
  FakeRig rig;
  rig.tree->put_dir("node_modules");
  rig.tree->put_file("node_modules/dep.js", "v1");
  rig.tree->put_file("a", "1");
  rig.snap("before");
  rig.tree->put_file("node_modules/dep.js", "v2");  // changed by the run: excluded, so kept
  rig.tree->put_file("node_modules/more.js", "x");
  rig.tree->put_file("a", "2");
  rig.snap("after");
  auto out = rig.restore(0);
  EXPECT_TRUE(out.applied);
  EXPECT_EQ(rig.tree->content("a"), "1");
  EXPECT_EQ(rig.tree->content("node_modules/dep.js"), "v2");
  EXPECT_TRUE(rig.tree->exists("node_modules/more.js"));
  // The defaults are named in the session (undo show lists them).
  ASSERT_FALSE(rig.session.excludes.empty());
  EXPECT_EQ(rig.session.excludes[0].pattern, "node_modules");
}

TEST(Undo, HostChangesSinceTheLastSnapshotAreConflicts) {
  FakeRig rig;
  rig.tree->put_file("a", "1");
  rig.tree->put_file("b", "1");
  rig.snap("before");
  rig.tree->put_file("a", "agent");
  rig.tree->put_file("b", "agent");
  rig.snap("after");
  rig.tree->put_file("a", "the user's edit after the run");
  RestoreRequest req;
  req.session = rig.session.id;
  req.target = 0;
  auto r = rig.mgr->restore(req);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->applied);
  ASSERT_EQ(r->conflicts.size(), 1u);
  EXPECT_EQ(r->conflicts[0], "/fake/proj/a");
  EXPECT_EQ(rig.tree->content("a"), "the user's edit after the run");
  EXPECT_EQ(rig.tree->content("b"), "agent");  // nothing applied
  auto forced = rig.restore(0, {}, true);
  EXPECT_TRUE(forced.applied);
  EXPECT_EQ(rig.tree->content("a"), "1");
  // The restore is itself undoable: the snapshot before it holds the user's edit.
  auto back = rig.restore(forced.before_snapshot);
  EXPECT_TRUE(back.applied);
  EXPECT_EQ(rig.tree->content("a"), "the user's edit after the run");
}

// Issue 30 item 5: the two meanings of a restore to S1:0 when a later session S2 changed the
// scope too. SessionChanges takes back S1's configure only; ScopeState brings the scope back to
// S1:0 (S2's Makefile goes too), and refuses to overwrite an edit no snapshot holds.
TEST(Undo, RestoreMeaningsTakeBackOneSessionOrTheScopeSinceASnapshot) {
  FakeRig rig;
  rig.tree->put_file("main.c", "1");
  rig.snap("before run");
  rig.tree->put_file("configure", "conf");
  rig.snap("after run");
  Scope scope;
  scope.roots = {"/fake/proj"};
  scope.home = "/fake";
  auto s2 = rig.mgr->begin(scope, {"make"}, "/fake/proj");
  ASSERT_TRUE(s2) << s2.error().describe();
  ASSERT_TRUE(rig.mgr->snapshot(*s2, "before run"));
  rig.tree->put_file("Makefile", "all:");
  ASSERT_TRUE(rig.mgr->snapshot(*s2, "after run"));
  auto request = [&](RestoreMeaning m, bool dry_run, bool force = false) {
    RestoreRequest req;
    req.session = rig.session.id;
    req.target = 0;
    req.meaning = m;
    req.dry_run = dry_run;
    req.force = force;
    return rig.mgr->restore(req);
  };
  auto paths = [](const RestoreOutcome& o) {
    std::vector<std::string> out;
    for (const auto& c : o.changes) out.push_back(c.path);
    return out;
  };
  auto changes = request(RestoreMeaning::SessionChanges, true);
  ASSERT_TRUE(changes) << changes.error().describe();
  EXPECT_EQ(paths(*changes), std::vector<std::string>{"configure"});
  auto state = request(RestoreMeaning::ScopeState, true);
  ASSERT_TRUE(state) << state.error().describe();
  EXPECT_EQ(paths(*state), (std::vector<std::string>{"Makefile", "configure"}));
  EXPECT_EQ(state->later_sessions, std::vector<std::string>{s2->id});
  // A dry run records nothing: the session's own changes are still its own.
  auto again = request(RestoreMeaning::SessionChanges, true);
  ASSERT_TRUE(again);
  EXPECT_EQ(paths(*again), std::vector<std::string>{"configure"});
  // An edit after the last run, in no snapshot: refused unless forced.
  rig.tree->put_file("Makefile", "the user's edit");
  auto refused = request(RestoreMeaning::ScopeState, false);
  ASSERT_TRUE(refused) << refused.error().describe();
  EXPECT_FALSE(refused->applied);
  EXPECT_EQ(refused->conflicts, std::vector<std::string>{"/fake/proj/Makefile"});
  EXPECT_EQ(rig.tree->content("Makefile"), "the user's edit");
  rig.tree->put_file("Makefile", "all:");
  auto done = request(RestoreMeaning::ScopeState, false);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_TRUE(done->applied);
  EXPECT_FALSE(rig.tree->exists("Makefile"));
  EXPECT_FALSE(rig.tree->exists("configure"));
  EXPECT_EQ(rig.tree->content("main.c"), "1");
}

TEST(Undo, RestoreOfSomePathsLeavesTheRest) {
  FakeRig rig;
  rig.tree->put_dir("d");
  rig.tree->put_file("d/x", "1");
  rig.tree->put_file("y", "1");
  rig.snap("before");
  rig.tree->remove_tree("d");
  rig.tree->put_file("y", "2");
  rig.snap("after");
  auto out = rig.restore(0, {"/fake/proj/d/x"});
  EXPECT_TRUE(out.applied);
  EXPECT_EQ(rig.tree->content("d/x"), "1");
  EXPECT_EQ(rig.tree->content("y"), "2");
  RestoreRequest req;
  req.session = rig.session.id;
  req.paths = {"/elsewhere"};
  auto bad = rig.mgr->restore(req);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("not in the session"), std::string::npos);
}

// A restore looks only at what differs between the last snapshot and the target: no directory
// is listed, no unchanged file read, and an edit made elsewhere after the last snapshot stays.
TEST(Undo, RestoreTouchesOnlyTheChangedPaths) {
  FakeRig rig;
  for (int d = 0; d < 10; ++d) {
    rig.tree->put_dir("d" + std::to_string(d));
    for (int i = 0; i < 50; ++i) rig.tree->put_file("d" + std::to_string(d) + "/f" + std::to_string(i), "v0");
  }
  const std::string original = rig.tree->describe();
  rig.snap("before");
  rig.tree->put_file("d1/f1", "agent");
  rig.tree->put_file("d2/new", "agent");
  rig.tree->remove_tree("d3/f3");
  rig.snap("after");
  rig.tree->put_file("d9/f9", "the user's edit, elsewhere");
  rig.tree->lists = 0;
  rig.tree->files_opened = 0;
  auto out = rig.restore(0);
  EXPECT_TRUE(out.applied);
  EXPECT_TRUE(out.conflicts.empty());
  EXPECT_EQ(out.changes.size(), 3u);
  EXPECT_EQ(rig.tree->lists, 0);
  EXPECT_EQ(rig.tree->files_opened, 2);  // d1/f1 and d2/new, read again only after they are written
  EXPECT_EQ(rig.tree->content("d1/f1"), "v0");
  EXPECT_FALSE(rig.tree->exists("d2/new"));
  EXPECT_EQ(rig.tree->content("d3/f3"), "v0");
  EXPECT_EQ(rig.tree->content("d9/f9"), "the user's edit, elsewhere");
  rig.tree->put_file("d9/f9", "v0");
  EXPECT_EQ(rig.tree->describe(), original);
}

// A directory the restore removes is listed: what was put in it since the last snapshot is a
// conflict, and goes with it under --force.
TEST(Undo, WhatWasAddedInARemovedDirectoryIsAConflict) {
  FakeRig rig;
  rig.tree->put_file("keep", "k");
  rig.snap("before");
  rig.tree->put_dir("build");
  rig.tree->put_file("build/out", "agent");
  rig.snap("after");
  rig.tree->put_dir("build/sub");
  rig.tree->put_file("build/sub/mine", "the user's");
  RestoreRequest req;
  req.session = rig.session.id;
  req.target = 0;
  auto r = rig.mgr->restore(req);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_FALSE(r->applied);
  EXPECT_NE(std::find(r->conflicts.begin(), r->conflicts.end(), "/fake/proj/build/sub/mine"), r->conflicts.end());
  EXPECT_TRUE(rig.tree->exists("build/sub/mine"));
  auto forced = rig.restore(0, {}, true);
  EXPECT_TRUE(forced.applied);
  EXPECT_FALSE(rig.tree->exists("build"));
  auto back = rig.restore(forced.before_snapshot);
  EXPECT_TRUE(back.applied);
  EXPECT_EQ(rig.tree->content("build/sub/mine"), "the user's");
}

// A restore in a process that did not take the snapshots (the CLI): the snapshots it records
// are deltas whose "before" entries come from the store, and they materialize.
TEST(Undo, ARestoreInAFreshProcessRecordsSoundDeltas) {
  FakeRig rig;
  rig.tree->put_file("keep", "k");
  rig.snap("before");
  rig.tree->put_dir("x");
  rig.tree->put_file("x/a", "agent a");
  rig.tree->put_file("x/b", "agent b");
  rig.tree->put_file("keep", "agent");
  rig.snap("after");
  for (std::vector<std::string> paths : {std::vector<std::string>{"/fake/proj/x/a"}, std::vector<std::string>{}}) {
    SnapshotManager fresh(*rig.store, [t = rig.tree](const std::string&) -> Result<std::shared_ptr<TreeFs>> {
      return std::shared_ptr<TreeFs>(t);
    }, fake_check(rig.check));
    RestoreRequest req;
    req.session = rig.session.id;
    req.target = 0;
    req.paths = paths;
    auto out = fresh.restore(req);
    ASSERT_TRUE(out) << out.error().describe();
    EXPECT_TRUE(out->applied);
    auto s = rig.store->load_session(rig.session.id);
    ASSERT_TRUE(s);
    for (const auto& si : s->snapshots) {
      auto m = rig.store->load_manifest(s->id, si.n);
      ASSERT_TRUE(m) << si.n << ": " << m.error().describe();
    }
    ScanStats st;
    auto walked = scan_root(*rig.tree, "/fake/proj", {}, nullptr, nullptr, st);
    ASSERT_TRUE(walked);
    Manifest w;
    w.roots.push_back(std::move(*walked));
    auto last = rig.store->load_manifest(s->id, s->snapshots.back().n);
    ASSERT_TRUE(last);
    EXPECT_TRUE(diff_manifests(*last, w).empty());
    EXPECT_TRUE(diff_manifests(w, *last).empty());
  }
  EXPECT_FALSE(rig.tree->exists("x"));
  EXPECT_EQ(rig.tree->content("keep"), "k");
}

TEST(Undo, UnknownSessionOrSnapshotIsAClearError) {
  FakeRig rig;
  rig.snap();
  RestoreRequest req;
  req.session = "20990101-000000-abcd";
  auto r = rig.mgr->restore(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no session"), std::string::npos);
  req.session = "../../etc";
  EXPECT_FALSE(rig.mgr->restore(req));
  req.session = rig.session.id;
  req.target = 7;
  r = rig.mgr->restore(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no snapshot 7"), std::string::npos);
}

// Random sequences of create / modify / delete / rename / chmod / symlink with snapshots between
// them; then restoring each snapshot, in random order, gives back exactly its tree.
// An interrupted restore's journal is pending: a new restore is refused (it would mix two
// restores and drop the journal that says how to finish the first), and nothing changes, until
// resume() finishes the first (issue 26 item 9).
TEST(Undo, ANewRestoreIsRefusedWhileAnInterruptedOnesJournalIsPending) {
  FakeRig rig;
  rig.tree->put_file("a", "1");
  rig.tree->put_file("b", "1");
  rig.snap("before");
  rig.tree->put_file("a", "2");
  rig.tree->put_file("b", "2");
  rig.snap("after");
  // A restore of "a" to :0 killed after its journal was written, before it changed anything.
  Journal j;
  j.session = rig.session.id;
  j.target = 0;
  j.before = 1;
  j.paths = {"/fake/proj/a"};
  ASSERT_TRUE(rig.store->save_journal(j));
  const std::string tree = rig.tree->describe();
  for (bool dry_run : {true, false}) {
    RestoreRequest req;
    req.session = rig.session.id;
    req.target = 0;
    req.dry_run = dry_run;
    auto r = rig.mgr->restore(req);
    ASSERT_FALSE(r) << "a restore went ahead with another one's journal pending";
    EXPECT_NE(r.error().describe().find("was interrupted"), std::string::npos) << r.error().describe();
    EXPECT_NE(r.error().hint.find("--resume"), std::string::npos) << r.error().hint;
    EXPECT_EQ(rig.tree->describe(), tree);
    auto still = rig.store->load_journal();
    ASSERT_TRUE(still && *still);
    EXPECT_EQ((*still)->paths, j.paths);
  }
  auto resumed = rig.mgr->resume();
  ASSERT_TRUE(resumed && *resumed) << (resumed ? "nothing resumed" : resumed.error().describe());
  EXPECT_EQ(rig.tree->content("a"), "1");
  EXPECT_EQ(rig.tree->content("b"), "2");
  auto after = rig.store->load_session(rig.session.id);
  ASSERT_TRUE(after);
  rig.session = *after;
  auto out = rig.restore(0);
  EXPECT_TRUE(out.applied);
  EXPECT_EQ(rig.tree->content("b"), "1");
}

TEST(Undo, PropertyRandomHistoriesRestoreExactly) {
  for (unsigned seed = 1; seed <= 25; ++seed) {
    std::mt19937 rng(seed);
    FakeRig rig(std::vector<Exclude>{});
    std::map<int, std::string> trees;  // snapshot number -> the tree it holds
    auto pick = [&](bool dirs_only) -> std::string {
      std::vector<std::string> ps;
      for (const auto& p : rig.tree->paths()) {
        auto st = rig.tree->stat(p);
        if (!st) continue;
        if (dirs_only ? st->type == EntryType::Dir : !p.empty()) ps.push_back(p);
      }
      if (ps.empty()) return {};
      return ps[rng() % ps.size()];
    };
    auto fresh = [&](const std::string& dir) {
      return join_rel(dir, std::string(1, "abcdef"[rng() % 6]) + std::to_string(rng() % 5));
    };
    for (int step = 0; step < 6; ++step) {
      for (int k = 0; k < 12; ++k) {
        const int what = rng() % 7;
        const std::string dir = pick(true);
        const std::string any = pick(false);
        std::string p = fresh(dir);
        if (rig.tree->exists(p)) continue;
        switch (what) {
          case 0: rig.tree->put_file(p, "c" + std::to_string(rng() % 4)); break;
          case 1: rig.tree->put_dir(p, rng() % 2 ? 0755 : 0700); break;
          case 2:
            if (!any.empty() && rig.tree->stat(any)->type == EntryType::File) rig.tree->put_file(any, "m" + std::to_string(rng()));
            break;
          case 3: if (!any.empty()) rig.tree->remove_tree(any); break;
          case 4:
            if (!any.empty() && !rel_at_or_under(p, any)) rig.tree->rename(any, p);
            break;
          case 5:
            if (!any.empty() && rig.tree->stat(any)->type != EntryType::Symlink) rig.tree->chmod(any, rng() % 2 ? 0600 : 0750);
            break;
          case 6: rig.tree->put_symlink(p, rng() % 2 ? "/etc" : "../" + std::to_string(rng() % 3)); break;
        }
      }
      int n = rig.snap("step " + std::to_string(step));
      trees[n] = rig.tree->describe();
      // Stored as a delta (but for 0): materialized from the chain, it is exactly what a walk
      // of the tree finds, every field of every entry.
      auto stored = rig.store->load_manifest(rig.session.id, n);
      ASSERT_TRUE(stored) << stored.error().describe();
      ScanStats st;
      auto walked = scan_root(*rig.tree, "/fake/proj", {}, nullptr, nullptr, st);
      ASSERT_TRUE(walked);
      ASSERT_EQ(stored->roots.size(), 1u);
      ASSERT_EQ(stored->roots[0].entries.size(), walked->entries.size()) << "seed " << seed;
      for (std::size_t i = 0; i < walked->entries.size(); ++i) {
        ASSERT_TRUE(same_full_entry(stored->roots[0].entries[i], walked->entries[i]))
            << "seed " << seed << " snapshot " << n << " " << walked->entries[i].path;
      }
      EXPECT_EQ(rig.session.snapshots.back().entries + 1, walked->entries.size());  // the root is not counted
      // The changes from the deltas are the diff of the two whole manifests, both ways.
      auto first = rig.store->load_manifest(rig.session.id, 0);
      ASSERT_TRUE(first);
      for (auto [from, to] : {std::pair{0, n}, std::pair{n, 0}}) {
        auto ch = rig.mgr->changes(rig.session, from, to);
        ASSERT_TRUE(ch) << ch.error().describe();
        auto want = from == 0 ? diff_manifests(*first, *stored) : diff_manifests(*stored, *first);
        ASSERT_EQ(ch->size(), want.size()) << "seed " << seed << " " << from << "->" << to;
        for (std::size_t i = 0; i < want.size(); ++i) {
          EXPECT_EQ((*ch)[i].path, want[i].path);
          EXPECT_EQ((*ch)[i].kind, want[i].kind);
          EXPECT_EQ((*ch)[i].new_hash, want[i].new_hash);
        }
      }
    }
    for (int k = 0; k < 8; ++k) {
      int n = rng() % trees.size();
      const std::string was = rig.tree->describe();
      auto out = rig.restore(n, {}, true);
      ASSERT_TRUE(out.applied) << "seed " << seed;
      ASSERT_EQ(rig.tree->describe(), trees[n]) << "seed " << seed << " snapshot " << n;
      // The restore took two snapshots: the tree before it, and the tree it made.
      trees[out.before_snapshot] = was;
      trees[rig.session.snapshots.back().n] = trees[n];
      // Both were derived without a walk: they hold exactly what a walk of the tree finds.
      auto derived = rig.store->load_manifest(rig.session.id, rig.session.snapshots.back().n);
      ASSERT_TRUE(derived) << derived.error().describe();
      ScanStats st;
      auto walked = scan_root(*rig.tree, "/fake/proj", {}, nullptr, nullptr, st);
      ASSERT_TRUE(walked);
      Manifest w;
      w.roots.push_back(std::move(*walked));
      EXPECT_TRUE(diff_manifests(*derived, w).empty()) << "seed " << seed;
      EXPECT_TRUE(diff_manifests(w, *derived).empty()) << "seed " << seed;
    }
  }
}

std::string read_text(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary | std::ios::trunc) << text; }

// Snapshots after the first are deltas; 0 and every kFullEvery-th are whole.
TEST(Store, SnapshotsAfterTheFirstAreDeltas) {
  FakeRig rig;
  rig.tree->put_file("a", "0");
  for (int i = 0; i <= kFullEvery; ++i) {
    rig.tree->put_file("a", std::to_string(i));
    rig.snap();
  }
  const std::string dir = rig.store->dir() + "/sessions/" + rig.session.id + "/";
  EXPECT_TRUE(fs::exists(dir + "0.manifest"));
  EXPECT_FALSE(fs::exists(dir + "0.delta"));
  EXPECT_TRUE(fs::exists(dir + "1.delta"));
  EXPECT_FALSE(fs::exists(dir + "1.manifest"));
  EXPECT_TRUE(fs::exists(dir + std::to_string(kFullEvery) + ".manifest"));
  EXPECT_TRUE(fs::exists(dir + std::to_string(kFullEvery) + ".delta"));
  EXPECT_LT(fs::file_size(dir + "5.delta"), 1000u);
  auto full = rig.store->load_manifest(rig.session.id, kFullEvery);
  fs::remove(dir + std::to_string(kFullEvery) + ".manifest");  // the same snapshot from the chain
  auto chained = rig.store->load_manifest(rig.session.id, kFullEvery);
  ASSERT_TRUE(full && chained);
  EXPECT_EQ(serialize_manifest(*full), serialize_manifest(*chained));
  EXPECT_EQ(read_text(rig.store->dir() + "/VERSION"), "paddock-undo-store 2\n");
}

// Ids name their second only: sessions begun in one second come out in the order they were made
// (prune removes the oldest, restore takes the newest), not in the order of their random suffix.
TEST(Store, SessionsOfOneSecondAreInTheOrderTheyWereMade) {
  FakeRig rig;
  Scope scope;
  scope.roots = {"/fake/proj"};
  scope.home = "/fake";
  std::vector<std::string> made = {rig.session.id};
  for (int i = 0; i < 12; ++i) {
    auto b = rig.mgr->begin(scope, {"agent"}, "/fake/proj");
    ASSERT_TRUE(b) << b.error().describe();
    made.push_back(b->id);
  }
  auto ids = rig.store->session_ids();
  ASSERT_TRUE(ids) << ids.error().describe();
  EXPECT_EQ(*ids, made);
}

// A torn delta, one applied to the wrong base, one from a newer paddock: refused, with where.
TEST(Store, BadDeltasAreRefused) {
  FakeRig rig;
  rig.tree->put_file("a", "0");
  rig.tree->put_file("b", "0");
  rig.snap();
  rig.tree->put_file("a", "1");
  rig.snap();
  const std::string delta = rig.store->dir() + "/sessions/" + rig.session.id + "/1.delta";
  const std::string text = read_text(delta);
  for (std::size_t n = 0; n < text.size(); ++n) {
    EXPECT_FALSE(parse_delta(text.substr(0, n), "t")) << n;
  }
  write_text(delta, text.substr(0, text.size() - 3));
  auto torn = rig.store->load_manifest(rig.session.id, 1);
  ASSERT_FALSE(torn);
  EXPECT_NE(torn.error().where.find("1.delta"), std::string::npos);
  RestoreRequest req;
  req.session = rig.session.id;
  req.target = 0;
  SnapshotManager fresh(*rig.store, [t = rig.tree](const std::string&) -> Result<std::shared_ptr<TreeFs>> {
    return std::shared_ptr<TreeFs>(t);
  }, fake_check(rig.check));
  EXPECT_FALSE(fresh.restore(req));
  EXPECT_EQ(rig.tree->content("a"), "1");
  // A "before" that is not what the base holds: the chain is broken.
  std::string wrong = text;
  const std::size_t minus = wrong.find("\n- e ");
  ASSERT_NE(minus, std::string::npos);
  const std::size_t size_at = wrong.find(" 1 ", minus);  // the size field of a's old entry ("0": 1 byte)
  ASSERT_NE(size_at, std::string::npos);
  wrong.replace(size_at, 3, " 7 ");
  write_text(delta, wrong);
  auto broken = rig.store->load_manifest(rig.session.id, 1);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("chain is broken"), std::string::npos);
  std::string newer = text;
  newer.replace(0, newer.find('\n'), "paddock-undo-delta 99");
  auto nd = parse_delta(newer, "t");
  ASSERT_FALSE(nd);
  EXPECT_NE(nd.error().message.find("newer"), std::string::npos);
}

// A store written by the previous version (full manifests only, VERSION 1) is read, restored
// from, and written on as version 2.
TEST(Store, VersionOneStoreIsStillRead) {
  FakeRig rig;
  rig.tree->put_dir("d");
  rig.tree->put_file("d/a", "0");
  const std::string original = rig.tree->describe();
  rig.snap();
  rig.tree->put_file("d/a", "1");
  rig.tree->put_file("b", "new");
  rig.snap();
  // Rewrite it as version 1 wrote it.
  const std::string dir = rig.store->dir() + "/sessions/" + rig.session.id + "/";
  for (int n = 0; n < 2; ++n) {
    auto m = rig.store->load_manifest(rig.session.id, n);
    ASSERT_TRUE(m);
    std::string text = serialize_manifest(*m);
    text.replace(0, text.find('\n'), "paddock-undo-manifest 1");
    write_text(dir + std::to_string(n) + ".manifest", text);
    fs::remove(dir + std::to_string(n) + ".delta");
  }
  std::string session = read_text(dir + "session.json");
  session.replace(session.find("\"version\": 2"), 13, "\"version\": 1");
  write_text(dir + "session.json", session);
  write_text(rig.store->dir() + "/VERSION", "paddock-undo-store 1\n");
  rig.mgr.reset();
  rig.store.reset();
  auto st = Store::open(rig.dir.path() + "/state/paddock/undo", false);
  ASSERT_TRUE(st) << st.error().describe();
  rig.store = std::move(*st);
  rig.store->set_syncfs(false);
  rig.mgr = std::make_unique<SnapshotManager>(*rig.store, [t = rig.tree](const std::string&) -> Result<std::shared_ptr<TreeFs>> {
    return std::shared_ptr<TreeFs>(t);
  }, fake_check(rig.check));
  auto out = rig.restore(0);
  EXPECT_TRUE(out.applied);
  EXPECT_EQ(rig.tree->describe(), original);
  EXPECT_TRUE(fs::exists(dir + "2.delta"));  // the snapshots the restore took: deltas
  EXPECT_EQ(read_text(rig.store->dir() + "/VERSION"), "paddock-undo-store 2\n");
  auto back = rig.restore(out.before_snapshot);
  EXPECT_TRUE(back.applied);
  EXPECT_EQ(rig.tree->content("b"), "new");
}

TEST(Store, NewerVersionIsRefusedAndOthersCannotRead) {
  TempDir d;
  const std::string dir = d.path() + "/state/paddock/undo";
  ASSERT_TRUE(Store::open(dir, true));
  struct stat st;
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  {
    std::ofstream(dir + "/VERSION") << "paddock-undo-store 9\n";
  }
  auto s = Store::open(dir, false);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("newer"), std::string::npos);
  std::ofstream(dir + "/VERSION") << "paddock-undo-store 1\n";
  ::chmod(dir.c_str(), 0755);
  s = Store::open(dir, false);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("open to other users"), std::string::npos);
}

TEST(Store, PruneKeepsSharedObjectsAndRemovesTheRest) {
  FakeRig rig;
  rig.tree->put_file("shared", "same in every session");
  rig.tree->put_file("own", "first");
  rig.snap();
  Scope scope;
  scope.roots = {"/fake/proj"};
  auto second = rig.mgr->begin(scope, {"x"}, "/");
  ASSERT_TRUE(second);
  rig.tree->put_file("own", "second");
  ASSERT_TRUE(rig.mgr->snapshot(*second, ""));
  ASSERT_TRUE(rig.store->remove_session(rig.session.id));
  auto gc = rig.store->collect_garbage();
  ASSERT_TRUE(gc);
  EXPECT_EQ(gc->objects_removed, 1u);  // "first"
  EXPECT_EQ(gc->objects_kept, 2u);
  EXPECT_TRUE(rig.store->has_object(sha256_hex("same in every session")));
  EXPECT_FALSE(rig.store->has_object(sha256_hex("first")));
}

// An object only a delta names (a file added after the first snapshot) is kept.
TEST(Store, GarbageCollectionSeesTheDeltas) {
  FakeRig rig;
  rig.tree->put_file("a", "first");
  rig.snap();
  rig.tree->put_file("b", "only in snapshot 1");
  rig.snap();
  rig.tree->remove_tree("b");
  rig.snap();
  auto gc = rig.store->collect_garbage();
  ASSERT_TRUE(gc) << gc.error().describe();
  EXPECT_EQ(gc->objects_removed, 0u);
  EXPECT_TRUE(rig.store->has_object(sha256_hex("only in snapshot 1")));
}

// The store's size a run compares with its quota is kept, not walked for: each commit adds its
// objects, garbage collection makes the next asker walk again.
TEST(Store, TheKnownSizeFollowsCommitsAndCollections) {
  FakeRig rig;
  rig.tree->put_file("a", std::string(10000, 'a'));
  rig.snap();
  auto walked = rig.store->object_bytes();
  ASSERT_TRUE(walked);
  auto known = rig.store->object_bytes_known();  // written now
  ASSERT_TRUE(known);
  EXPECT_EQ(*known, *walked);
  rig.tree->put_file("b", std::string(20000, 'b'));
  rig.snap();
  walked = rig.store->object_bytes();
  EXPECT_GT(*walked, *known);
  EXPECT_EQ(*rig.store->object_bytes_known(), *walked);
  ASSERT_TRUE(rig.store->remove_session(rig.session.id));
  ASSERT_TRUE(rig.store->collect_garbage());
  EXPECT_EQ(*rig.store->object_bytes_known(), *rig.store->object_bytes());
}

}  // namespace
}  // namespace paddock::undo
