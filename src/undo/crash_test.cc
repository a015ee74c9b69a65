// kill -9 at every crash point of a snapshot and of a restore, on a real tree (issue 14): the
// store is never corrupt (every manifest parses, every object it names is there and matches its
// name), and after resume() the tree is exactly the target snapshot, never a mix.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "undo/sha256.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock::undo {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put(const std::string& p, const std::string& content) {
  fs::create_directories(fs::path(p).parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
}

// path, type, mode, content or target: what "the same tree" means.
std::string describe_tree(const std::string& root) {
  std::vector<std::string> lines;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string p = it->path().string();
    struct stat st;
    ::lstat(p.c_str(), &st);
    std::string l = p.substr(root.size()) + " " + std::to_string(st.st_mode);
    if (S_ISREG(st.st_mode)) l += " " + sha256_hex(slurp(p));
    if (S_ISLNK(st.st_mode)) l += " -> " + fs::read_symlink(p).string();
    lines.push_back(l);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (auto& l : lines) out += l + "\n";
  return out;
}

void expect_object(const std::string& dir, const ManifestEntry& e) {
  if (e.hash.empty()) return;
  const std::string obj = dir + "/objects/" + e.hash.substr(0, 2) + "/" + e.hash.substr(2);
  ASSERT_TRUE(fs::exists(obj)) << obj;
  ASSERT_EQ(sha256_hex(slurp(obj)), e.hash) << obj;
}

// Every manifest and delta parses, every object either names exists with content matching its
// name, and every snapshot a session lists materializes (its delta chain applies).
void expect_store_sound(const std::string& dir) {
  auto store = Store::open(dir, false);
  ASSERT_TRUE(store) << store.error().describe();
  for (const auto& s : fs::directory_iterator(dir + "/sessions")) {
    for (const auto& f : fs::directory_iterator(s.path())) {
      const std::string name = f.path().filename().string();
      if (name.size() > 6 && name.substr(name.size() - 6) == ".delta") {
        auto d = parse_delta(slurp(f.path().string()), f.path().string());
        ASSERT_TRUE(d) << d.error().describe();
        for (const auto& r : d->roots) {
          for (const auto& c : r.changes) {
            if (c.before) expect_object(dir, *c.before);
            if (c.after) expect_object(dir, *c.after);
          }
        }
        continue;
      }
      if (name.size() < 9 || name.substr(name.size() - 9) != ".manifest") continue;
      auto m = parse_manifest(slurp(f.path().string()), f.path().string());
      ASSERT_TRUE(m) << m.error().describe();
      for (const auto& r : m->roots) {
        for (const auto& e : r.entries) expect_object(dir, e);
      }
    }
    auto session = (*store)->load_session(s.path().filename().string());
    ASSERT_TRUE(session) << session.error().describe();
    for (const auto& si : session->snapshots) {
      auto m = (*store)->load_manifest(session->id, si.n);
      ASSERT_TRUE(m) << "snapshot " << si.n << ": " << m.error().describe();
    }
  }
  for (const auto& sub : fs::directory_iterator(dir + "/objects")) {
    for (const auto& o : fs::directory_iterator(sub.path())) {
      ASSERT_EQ(sha256_hex(slurp(o.path().string())), sub.path().filename().string() + o.path().filename().string());
    }
  }
}

struct Trial {
  std::string base, root, store_dir;
  explicit Trial(unsigned seed) {
    char tmpl[] = "/tmp/paddock-undo-crash-XXXXXX";
    base = ::mkdtemp(tmpl);
    root = base + "/proj";
    store_dir = base + "/state/paddock/undo";
    std::mt19937 rng(seed);
    for (int i = 0; i < 12; ++i) put(root + "/d" + std::to_string(i % 3) + "/f" + std::to_string(i), "v0 " + std::to_string(rng()));
    fs::create_directories(root + "/empty");
    fs::create_symlink("d0/f0", root + "/link");
  }
  ~Trial() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  // The agent's changes.
  void change(unsigned seed) {
    std::mt19937 rng(seed);
    put(root + "/d0/f0", "v1 " + std::to_string(rng()));
    put(root + "/new/file", "added");
    fs::remove(root + "/d1/f1");
    fs::remove(root + "/empty");
    fs::remove(root + "/link");
    fs::create_symlink("/etc", root + "/link");
    fs::rename(root + "/d2", root + "/d2-moved");
    ::chmod((root + "/d0/f3").c_str(), 0600);
  }
};

// Runs F in a child with crash point K armed. True when the child was killed (a crash happened).
template <class F>
bool crashed_at(long k, F f) {
  pid_t pid = ::fork();
  if (pid == 0) {
    set_crash_after(k);
    bool ok = f();
    ::_exit(ok ? 0 : 3);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) {
    EXPECT_EQ(WTERMSIG(st), SIGKILL);
    return true;
  }
  EXPECT_EQ(WEXITSTATUS(st), 0) << "the child failed without a crash";
  return false;
}

TEST(KillNine, EveryCrashPointOfSnapshotAndRestore) {
  int trials = 0;
  for (unsigned round = 0; trials < 200 && round < 20; ++round) {
    // Snapshot: killed at crash point k, the store stays sound and a later snapshot works.
    for (long k = 1;; ++k) {
      Trial t(round * 1000 + k);
      auto st = Store::open(t.store_dir, true);
      ASSERT_TRUE(st);
      (*st)->set_syncfs(false);  // a kill -9 keeps the page cache: syncfs is for power loss
      SnapshotManager mgr(**st);
      Scope scope;
      scope.roots = {t.root};
      auto s = mgr.begin(scope, {"x"}, t.root);
      ASSERT_TRUE(s);
      SessionInfo session = *s;
      ASSERT_TRUE(mgr.snapshot(session, "before"));
      t.change(k);
      const std::string changed = describe_tree(t.root);
      const bool crashed = crashed_at(k, [&] { return static_cast<bool>(mgr.snapshot(session, "after")); });
      ++trials;
      st->reset();  // its lock must go, as the killed process's did
      expect_store_sound(t.store_dir);
      auto st2 = Store::open(t.store_dir, false);
      ASSERT_TRUE(st2);
      SnapshotManager mgr2(**st2);
      auto reloaded = (*st2)->load_session(session.id);
      ASSERT_TRUE(reloaded);
      EXPECT_EQ(describe_tree(t.root), changed);  // a snapshot never changes the tree
      SessionInfo again = *reloaded;
      ASSERT_TRUE(mgr2.snapshot(again, "after, again"));
      // And restoring the first snapshot still gives the original tree back.
      RestoreRequest req{session.id, 0, {}, true, false};
      Trial fresh(round * 1000 + k);
      auto out = mgr2.restore(req);
      ASSERT_TRUE(out) << out.error().describe();
      EXPECT_EQ(describe_tree(t.root), describe_tree(fresh.root));
      if (!crashed) break;
    }
    // Restore: killed at crash point k, resume() finishes it: the tree is the target exactly.
    for (long k = 1;; ++k) {
      Trial t(round * 1000 + 500 + k);
      Trial original(round * 1000 + 500 + k);
      auto st = Store::open(t.store_dir, true);
      ASSERT_TRUE(st);
      (*st)->set_syncfs(false);  // a kill -9 keeps the page cache: syncfs is for power loss
      SnapshotManager mgr(**st);
      Scope scope;
      scope.roots = {t.root};
      auto s = mgr.begin(scope, {"x"}, t.root);
      ASSERT_TRUE(s);
      SessionInfo session = *s;
      ASSERT_TRUE(mgr.snapshot(session, "before"));
      t.change(k);
      const std::string changed = describe_tree(t.root);
      ASSERT_TRUE(mgr.snapshot(session, "after"));
      RestoreRequest req{session.id, 0, {}, false, false};
      const bool crashed = crashed_at(k, [&] { return static_cast<bool>(mgr.restore(req)); });
      ++trials;
      st->reset();  // its lock must go, as the killed process's did
      expect_store_sound(t.store_dir);
      auto st2 = Store::open(t.store_dir, false);
      ASSERT_TRUE(st2);
      SnapshotManager mgr2(**st2);
      auto journal = (*st2)->load_journal();
      ASSERT_TRUE(journal);
      if (*journal && k % 2 == 0) {
        // As a kill inside a write leaves it: the file being made, beside its name.
        put(t.root + "/d0/.paddock-undo-00000000deadbeef", "half");
      }
      if (*journal) {
        auto r = mgr2.resume();
        ASSERT_TRUE(r) << r.error().describe();
        EXPECT_EQ(describe_tree(t.root), describe_tree(original.root)) << "crash point " << k;
      } else {
        // No journal: the crash came before the first change or after the last: one tree or the other.
        const std::string now = describe_tree(t.root);
        EXPECT_TRUE(now == changed || now == describe_tree(original.root)) << "crash point " << k << "\n" << now;
      }
      EXPECT_FALSE((*st2)->load_journal()->has_value());
      if (!crashed) break;
    }
  }
  EXPECT_GE(trials, 200);
  std::printf("kill -9 trials: %d\n", trials);
}

}  // namespace
}  // namespace paddock::undo
