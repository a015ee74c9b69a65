// A session's first snapshot seeded from an earlier session's last (seed.h, issue 29): what is
// read, what is stored, what is still seen, and that nothing depends on what is pruned.
#include "undo/seed.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "undo/fake_rig.h"

namespace paddock::undo {
namespace {

using rig::FakeRig;

// Runs of `paddock run --undo` one after another over RIG's tree: each a new manager (a new
// process holds nothing in memory), a first snapshot, the run (RUN), a last snapshot and the seed.
struct Runs {
  FakeRig& rig;
  std::vector<SessionInfo> sessions;

  SnapshotManager fresh() const {
    return SnapshotManager(*rig.store, [t = rig.tree](const std::string& root) -> Result<std::shared_ptr<TreeFs>> {
      if (root != "/fake/proj") return make_error("unknown root " + root);
      return std::shared_ptr<TreeFs>(t);
    }, rig::fake_check(rig.check));
  }
  // The files the first snapshot read. DURING is the run; time passes after it (a file it changed
  // just before the last snapshot would be racily clean: ARacilyCleanFileIsReadAgain).
  int run(const std::function<void()>& during = [] {}, bool time_passes = true) {
    SnapshotManager mgr = fresh();
    Scope scope;
    scope.roots = {"/fake/proj"};
    scope.home = "/fake";
    scope.excludes = default_excludes();
    auto s = mgr.begin(scope, {"agent"}, "/fake/proj");
    EXPECT_TRUE(s) << s.error().describe();
    const int before = rig.tree->files_opened;
    auto first = mgr.snapshot(*s, "before run");
    EXPECT_TRUE(first) << first.error().describe();
    const int read = rig.tree->files_opened - before;
    during();
    if (time_passes) rig.tree->advance(1'000'000'000);
    auto last = mgr.snapshot(*s, "after run");
    EXPECT_TRUE(last) << last.error().describe();
    EXPECT_TRUE(mgr.save_seed(*s));
    sessions.push_back(*s);
    return read;
  }
  // A restore of S to snapshot N by a new process; false (and a failure) when it is refused.
  bool restore(const SessionInfo& s, int n) const {
    SnapshotManager mgr = fresh();
    RestoreRequest req;
    req.session = s.id;
    req.target = n;
    auto r = mgr.restore(req);
    EXPECT_TRUE(r) << r.error().describe();
    return r.ok();
  }
  Manifest manifest(const SessionInfo& s, int n) const {
    auto m = rig.store->load_manifest(s.id, n);
    EXPECT_TRUE(m) << m.error().describe();
    return m ? *m : Manifest{};
  }
  bool has(const SessionInfo& s, const std::string& file) const {
    struct stat st;
    return ::stat((rig.store->dir() + "/sessions/" + s.id + "/" + file).c_str(), &st) == 0;
  }
};

std::string hash_of(const Manifest& m, const std::string& path) {
  const ManifestEntry* e = m.roots.at(0).find(path);
  return e ? e->hash : std::string();
}

// RIG's tree: src/ with FILES small files.
void fill(FakeRig& rig, int files) {
  rig.tree->put_dir("src");
  for (int i = 0; i < files; ++i) rig.tree->put_file("src/f" + std::to_string(i) + ".c", "int f" + std::to_string(i) + ";\n");
  rig.tree->advance(1'000'000'000);
}

TEST(Seed, TheNextRunReadsOnlyWhatChangedAndStoresADelta) {
  FakeRig rig;
  fill(rig, 50);
  Runs runs{rig};
  EXPECT_EQ(runs.run([&] { rig.tree->put_file("src/f1.c", "changed by the run\n"); }), 50);  // nothing to seed from
  EXPECT_EQ(runs.run([&] { rig.tree->put_file("src/f2.c", "changed again\n"); }), 0);
  const SessionInfo& second = runs.sessions[1];
  EXPECT_EQ(second.base_session, runs.sessions[0].id);
  EXPECT_EQ(second.base_snapshot, 1);
  EXPECT_TRUE(runs.has(second, "0.delta"));
  EXPECT_FALSE(runs.has(second, "0.manifest"));
  // Snapshot 0 of the second run is the tree the first run left, read back through its base.
  Manifest a = runs.manifest(runs.sessions[0], 1), b = runs.manifest(second, 0);
  EXPECT_EQ(hash_of(b, "src/f1.c"), hash_of(a, "src/f1.c"));
  EXPECT_EQ(b.roots.at(0).entries.size(), a.roots.at(0).entries.size());
  EXPECT_NE(hash_of(runs.manifest(second, 1), "src/f2.c"), hash_of(b, "src/f2.c"));
}

// The host changes a file between two runs — same size, mtime put back, as `touch -d` does — and
// the next run's first snapshot must still see it: its ctime moved. Restoring that run then brings
// back the host's version, not the one the run before left.
TEST(Seed, AHostChangeBetweenRunsWithItsTimestampsPutBackIsSeen) {
  FakeRig rig;
  fill(rig, 20);
  Runs runs{rig};
  runs.run();
  const std::int64_t mtime = rig.tree->mtime("src/f3.c");
  rig.tree->put_file("src/f3.c", "int g3;\n");  // the same size as "int f3;\n"
  rig.tree->set_mtime("src/f3.c", mtime);
  EXPECT_EQ(runs.run([&] { rig.tree->put_file("src/f3.c", "int run;\n"); }), 1);
  ASSERT_TRUE(runs.restore(runs.sessions[1], 0));
  EXPECT_EQ(rig.tree->content("src/f3.c"), "int g3;\n");
}

// A file whose ctime lies within the racy window of the last scan's start is read again by the
// next run, as within a session (scan.h).
TEST(Seed, ARacilyCleanFileIsReadAgain) {
  FakeRig rig;
  fill(rig, 10);
  Runs runs{rig};
  // Changed just before the last snapshot's scan starts (no time passes between).
  runs.run([&] { rig.tree->put_file("src/f4.c", "int late;\n"); }, false);
  EXPECT_EQ(runs.run(), 1);
}

// Without the seed file (removed, torn, another roots'), the newest session with the same roots is
// read from the store: the same snapshot, only slower.
TEST(Seed, WithoutTheSeedFileTheStoreIsRead) {
  FakeRig rig;
  fill(rig, 30);
  Runs runs{rig};
  runs.run([&] { rig.tree->put_file("src/f1.c", "x\n"); });
  const std::string seeds = rig.store->dir() + "/seeds";
  const std::string file = seeds + "/" + seed_name({"/fake/proj"});
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string good = ss.str();
  ASSERT_FALSE(good.empty());

  std::string torn = good;
  torn[torn.size() / 2] ^= 1;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << torn;
  EXPECT_FALSE(rig.store->load_seed({"/fake/proj"}));
  EXPECT_EQ(runs.run(), 0);
  EXPECT_EQ(runs.sessions[1].base_session, runs.sessions[0].id);  // found in the store

  ASSERT_EQ(::unlink(file.c_str()), 0);
  EXPECT_EQ(runs.run(), 0);
  EXPECT_FALSE(rig.store->load_seed({"/other"}));
}

// The seed names a session that was pruned since: not used.
TEST(Seed, ASeedOfAPrunedSessionIsNotUsed) {
  FakeRig rig;
  fill(rig, 5);
  Runs runs{rig};
  runs.run();
  ASSERT_TRUE(rig.store->remove_session(runs.sessions[0].id));
  ASSERT_TRUE(rig.store->remove_session(rig.session.id));
  EXPECT_EQ(runs.run(), 5);
  EXPECT_TRUE(runs.sessions[1].base_session.empty());
}

// Removing the session a first snapshot is stored against writes that snapshot in full first: it
// and its restore stay whole, and no object it needs is collected.
TEST(Seed, PruningTheBaseKeepsTheSessionWhole) {
  FakeRig rig;
  fill(rig, 10);
  Runs runs{rig};
  runs.run([&] { rig.tree->put_file("src/f1.c", "first run\n"); });
  runs.run([&] { rig.tree->put_file("src/f1.c", "second run\n"); });
  const SessionInfo second = runs.sessions[1];
  const Manifest before = runs.manifest(second, 0);
  ASSERT_TRUE(rig.store->remove_session(runs.sessions[0].id));
  ASSERT_TRUE(rig.store->remove_session(rig.session.id));
  EXPECT_TRUE(runs.has(second, "0.manifest"));
  EXPECT_FALSE(runs.has(second, "0.delta"));
  auto reloaded = rig.store->load_session(second.id);
  ASSERT_TRUE(reloaded);
  EXPECT_TRUE(reloaded->base_session.empty());
  ASSERT_TRUE(rig.store->collect_garbage());
  const Manifest after = runs.manifest(second, 0);
  ASSERT_EQ(after.roots.at(0).entries.size(), before.roots.at(0).entries.size());
  for (std::size_t i = 0; i < after.roots[0].entries.size(); ++i)
    EXPECT_TRUE(same_full_entry(after.roots[0].entries[i], before.roots[0].entries[i]));
  ASSERT_TRUE(runs.restore(second, 0));
  EXPECT_EQ(rig.tree->content("src/f1.c"), "first run\n");
}

// After kMaxBaseChain runs stored against the one before, the next first snapshot is stored in full.
TEST(Seed, AChainOfSessionsIsCut) {
  FakeRig rig;
  fill(rig, 3);
  Runs runs{rig};
  for (int i = 0; i < kMaxBaseChain + 3; ++i) runs.run([&] { rig.tree->put_file("src/f0.c", std::to_string(i)); });
  int full = 0;
  for (const SessionInfo& s : runs.sessions) {
    if (runs.has(s, "0.manifest")) ++full;
    auto chain = rig.store->base_chain(s.id);
    ASSERT_TRUE(chain) << chain.error().describe();
    EXPECT_LE(*chain, kMaxBaseChain);
  }
  EXPECT_EQ(full, 2);  // the first run, and the one that cut the chain
  // The newest is still whole.
  EXPECT_EQ(runs.manifest(runs.sessions.back(), 1).roots.at(0).find("src/f0.c")->st.size,
            std::to_string(kMaxBaseChain + 2).size());
}

// The seed is the session that ended last (seeds/<roots>.last), found without reading every
// session; one still running (only its first snapshot) is not taken for it.
TEST(Seed, TheSessionThatEndedLastIsTheBase) {
  FakeRig rig;
  fill(rig, 6);
  Runs runs{rig};
  runs.run();
  SnapshotManager other = runs.fresh();
  Scope scope;
  scope.roots = {"/fake/proj"};
  auto running = other.begin(scope, {"still running"}, "/");
  ASSERT_TRUE(running);
  ASSERT_TRUE(other.snapshot(*running, "before run"));
  EXPECT_EQ(rig.store->load_last({"/fake/proj"}), runs.sessions[0].id);
  runs.run();
  EXPECT_EQ(runs.sessions[1].base_session, runs.sessions[0].id);
  EXPECT_EQ(rig.store->load_last({"/fake/proj"}), runs.sessions[1].id);
}

// Another session's snapshot is a base only for the same roots.
TEST(Seed, OtherRootsAreNotSeeds) {
  FakeRig rig;
  fill(rig, 4);
  Runs runs{rig};
  runs.run();
  Scope other;
  other.roots = {"/fake/proj/src"};
  auto s = rig.mgr->begin(other, {"x"}, "/");
  ASSERT_TRUE(s);
  EXPECT_FALSE(rig.store->load_seed(other.roots));
}

// What an older paddock would misread is marked: the store's VERSION and the session's version.
TEST(Seed, TheStoreIsMarkedForOlderPaddocks) {
  FakeRig rig;
  fill(rig, 2);
  Runs runs{rig};
  runs.run();
  auto version = [&] {
    std::ifstream in(rig.store->dir() + "/VERSION");
    std::string line;
    std::getline(in, line);
    return line;
  };
  EXPECT_EQ(version(), "paddock-undo-store 2");
  runs.run();
  EXPECT_EQ(version(), "paddock-undo-store 3");
  std::ifstream in(rig.store->dir() + "/sessions/" + runs.sessions[1].id + "/0.delta");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "paddock-undo-delta 3");
}

TEST(Seed, RoundTripsAndRefusesDamage) {
  FakeRig rig;
  fill(rig, 3);
  rig.tree->put_symlink("link", "src/f0.c");
  rig.snap();
  Seed s{rig.session.id, 0, *rig.store->load_manifest(rig.session.id, 0)};
  const std::string bytes = serialize_seed(s);
  auto back = parse_seed(bytes, "seed");
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->session, s.session);
  ASSERT_EQ(back->manifest.roots.size(), 1u);
  const auto& x = back->manifest.roots[0];
  const auto& y = s.manifest.roots[0];
  EXPECT_EQ(x.root, y.root);
  EXPECT_EQ(x.started_ns, y.started_ns);
  EXPECT_EQ(x.excludes.size(), y.excludes.size());
  ASSERT_EQ(x.entries.size(), y.entries.size());
  for (std::size_t i = 0; i < x.entries.size(); ++i) EXPECT_TRUE(same_full_entry(x.entries[i], y.entries[i])) << i;
  for (std::size_t cut : {std::size_t{0}, std::size_t{10}, bytes.size() - 1}) EXPECT_FALSE(parse_seed(bytes.substr(0, cut), "seed"));
  std::string flipped = bytes;
  flipped[30] ^= 4;
  EXPECT_FALSE(parse_seed(flipped, "seed"));
}

}  // namespace
}  // namespace paddock::undo
