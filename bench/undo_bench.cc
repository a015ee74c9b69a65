// paddock-undo-bench TREE STORE: the undo engine's costs on a real tree, each against its anchor
// in the same run (bench/undo_bench.sh makes the tree and runs `cp -a` beside it).
//   first snapshot             (time, bytes stored)
//   snapshot after 10 changes  vs  a full re-hash of the tree (the same scan with no index)
//                              and the floor: the bare metadata walk (floor_walk below)
//   where the rest goes: loading and serializing the manifest; the walk with its listings read
//                              ahead on every core vs one directory at a time (tree_listing.h)
//   restore of those 10 files, and of the restore itself by a manager with nothing in memory
//   store size after 10 sessions of 10 changed files each
// Prints one "name value" line per figure. `paddock-undo-bench TREE --floor`: the floor alone, and
// the same listings read on every core (the read-ahead's own floor).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "undo/snapshot_manager.h"
#include "undo/store.h"
#include "undo/tree_listing.h"

using namespace paddock::undo;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void change_ten(const std::string& tree, int round) {
  for (int i = 0; i < 10; ++i) {
    // d<i>/d<i>/f<i>: files the script's layout has (see undo_bench.sh).
    std::string p = tree + "/d" + std::to_string(i) + "/d" + std::to_string(i) + "/f" + std::to_string(i) + ".txt";
    std::ofstream(p, std::ios::app) << "change " << round << "\n";
  }
}

// The floor: the bare metadata walk every snapshot must do at least once (open each directory
// with O_NOFOLLOW, getdents64, fstatat each entry without following), nothing else: no names
// kept, no sorting, no manifest. Returns the entries seen.
std::uint64_t floor_walk(int dirfd) {
  std::uint64_t n = 0;
  alignas(8) char buf[1 << 15];
  for (;;) {
    long got = ::syscall(SYS_getdents64, dirfd, buf, sizeof(buf));
    if (got <= 0) break;
    for (long off = 0; off < got;) {
      struct Dirent64 {
        ino64_t d_ino;
        off64_t d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
      };
      auto* de = reinterpret_cast<Dirent64*>(buf + off);
      off += de->d_reclen;
      const char* name = de->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      struct stat st;
      if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      ++n;
      if (S_ISDIR(st.st_mode)) {
        int sub = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
          n += floor_walk(sub);
          ::close(sub);
        }
      }
    }
  }
  return n;
}

int die(const paddock::Error& e) {
  std::fprintf(stderr, "undo_bench: %s\n", e.describe().c_str());
  return 1;
}

}  // namespace

// The same tree without the read-ahead (tree_fs.h): everything forwarded but read_ahead, so the
// walk lists each directory itself, one at a time, as it did before issue 29.
class NoReadAhead final : public TreeFs {
 public:
  explicit NoReadAhead(std::unique_ptr<TreeFs> real) : real_(std::move(real)) {}
  paddock::Result<std::vector<TreeChild>> list(const std::string& d) override { return real_->list(d); }
  paddock::Result<FileStat> stat(const std::string& p) override { return real_->stat(p); }
  paddock::Result<paddock::sys::UniqueFd> open_file(const std::string& p) override { return real_->open_file(p); }
  paddock::Result<std::string> read_link(const std::string& p) override { return real_->read_link(p); }
  paddock::Result<void> make_dir(const std::string& p, const FileStat& m) override { return real_->make_dir(p, m); }
  paddock::Result<void> write_file(const std::string& p, int fd, const FileStat& m) override {
    return real_->write_file(p, fd, m);
  }
  paddock::Result<void> make_symlink(const std::string& p, const std::string& t) override {
    return real_->make_symlink(p, t);
  }
  paddock::Result<void> remove(const std::string& p) override { return real_->remove(p); }
  paddock::Result<void> set_mode(const std::string& p, mode_t m) override { return real_->set_mode(p, m); }
  paddock::Result<void> sync() override { return real_->sync(); }
  std::int64_t now_ns() override { return real_->now_ns(); }
  std::int64_t timestamp_granularity_ns() override { return real_->timestamp_granularity_ns(); }

 private:
  std::unique_ptr<TreeFs> real_;
};

// `paddock run --undo` run after run: see the end of main().
int runs_after_runs(Store& store, const Scope& scope, const std::string& tree);

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[2]) == "--floor") {
    // The anchor alone (bench/user_bench.sh): the bare metadata walk of TREE, best of five.
    double best = 1e18;
    std::uint64_t seen = 0;
    for (int k = 0; k < 5; ++k) {
      int fd = ::open(argv[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return 1;
      auto t0 = std::chrono::steady_clock::now();
      seen = floor_walk(fd);
      best = std::min(best, ms_since(t0));
      ::close(fd);
    }
    std::printf("floor_walk_ms %.1f\nfloor_walk_entries %llu\n", best, static_cast<unsigned long long>(seen));
    // The parallel anchor: the same getdents and lstat calls on every core, as a snapshot's walk
    // reads the tree ahead (tree_listing.h), with the listings kept and nothing else; best of five.
    double ahead = 1e18;
    for (int k = 0; k < 5; ++k) {
      int fd = ::open(argv[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return 1;
      auto t0 = std::chrono::steady_clock::now();
      Listings l = list_tree(fd, argv[1], {}, 64, listing_threads());
      ahead = std::min(ahead, ms_since(t0));
      ::close(fd);
    }
    std::printf("floor_read_ahead_ms %.1f\nfloor_read_ahead_threads %u\n", ahead, listing_threads());
    return 0;
  }
  if (argc != 3 && !(argc == 4 && std::string(argv[3]) == "--runs-only")) {
    std::fprintf(stderr, "usage: paddock-undo-bench TREE STORE_DIR [--runs-only] | paddock-undo-bench TREE --floor\n");
    return 2;
  }
  const std::string tree = argv[1], store_dir = std::string(argv[2]) + "/paddock/undo";
  if (argc == 4) {
    // Only the runs after runs (a store that already has a session of TREE: a first run's).
    auto store = Store::open(store_dir, true);
    if (!store) return die(store.error());
    Scope scope;
    scope.roots = {tree};
    scope.excludes = default_excludes();
    return runs_after_runs(**store, scope, tree);
  }
  auto store = Store::open(store_dir, true);
  if (!store) return die(store.error());
  SnapshotManager mgr(**store);
  Scope scope;
  scope.roots = {tree};
  scope.excludes = default_excludes();
  auto s = mgr.begin(scope, {"bench"}, tree);
  if (!s) return die(s.error());
  SessionInfo session = *s;

  auto t0 = std::chrono::steady_clock::now();
  auto first = mgr.snapshot(session, "first");
  if (!first) return die(first.error());
  std::printf("first_snapshot_ms %.1f\nfirst_snapshot_entries %llu\nfirst_snapshot_bytes_stored %llu\n", ms_since(t0),
              static_cast<unsigned long long>(first->entries), static_cast<unsigned long long>(first->bytes_new));

  // Warm: a snapshot with nothing changed, then 10 changes.
  auto idle = mgr.snapshot(session, "idle");
  if (!idle) return die(idle.error());
  std::printf("snapshot_unchanged_ms %.1f\n", idle->elapsed_us / 1000.0);
  change_ten(tree, 0);
  usleep(50000);  // past the racily-clean window, as between two turns of an agent
  t0 = std::chrono::steady_clock::now();
  auto ten = mgr.snapshot(session, "10 changes");
  if (!ten) return die(ten.error());
  std::printf("snapshot_10_changes_ms %.1f\nsnapshot_10_changes_files_read %llu\n", ms_since(t0),
              static_cast<unsigned long long>(ten->files_hashed));

  // The floor: the bare metadata walk of the same tree, best of three (warm cache).
  {
    double best = 1e18;
    std::uint64_t seen = 0;
    for (int k = 0; k < 3; ++k) {
      int fd = ::open(tree.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return 1;
      t0 = std::chrono::steady_clock::now();
      seen = floor_walk(fd);
      best = std::min(best, ms_since(t0));
      ::close(fd);
    }
    std::printf("floor_walk_ms %.1f\nfloor_walk_entries %llu\n", best, static_cast<unsigned long long>(seen));
  }
  // Where a snapshot's time goes besides the walk: the manifest it reads and writes.
  {
    t0 = std::chrono::steady_clock::now();
    auto m = (*store)->load_manifest(session.id, ten->n);
    if (!m) return die(m.error());
    std::printf("manifest_load_ms %.1f\n", ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    std::string text = serialize_manifest(*m);
    std::printf("manifest_serialize_ms %.1f\nmanifest_bytes %zu\n", ms_since(t0), text.size());
    // The walk of a snapshot alone (the metadata index in memory, nothing stored or written).
    auto fs = open_real_tree(tree);
    if (!fs) return die(fs.error());
    ScanStats st;
    t0 = std::chrono::steady_clock::now();
    auto again = scan_root(**fs, tree, m->roots[0].excludes, &m->roots[0], nullptr, st);
    if (!again) return die(again.error());
    std::printf("scan_walk_ms %.1f\nscan_walk_files_read %llu\n", ms_since(t0),
                static_cast<unsigned long long>(st.files_hashed));
    // The same walk without the read-ahead, best of three against the walk with it, best of three.
    double with = 1e18, without = 1e18;
    for (int k = 0; k < 3; ++k) {
      for (bool ahead : {true, false}) {
        auto real = open_real_tree(tree);
        if (!real) return die(real.error());
        std::unique_ptr<TreeFs> walked = ahead ? std::move(*real) : std::make_unique<NoReadAhead>(std::move(*real));
        ScanStats s2;
        t0 = std::chrono::steady_clock::now();
        if (auto w = scan_root(*walked, tree, m->roots[0].excludes, &m->roots[0], nullptr, s2); !w) return die(w.error());
        (ahead ? with : without) = std::min(ahead ? with : without, ms_since(t0));
      }
    }
    std::printf("scan_walk_read_ahead_ms %.1f\nscan_walk_one_at_a_time_ms %.1f\nscan_walk_read_ahead_threads %u\n", with,
                without, listing_threads());
    struct stat ds;
    const std::string delta = store_dir + "/sessions/" + session.id + "/" + std::to_string(ten->n) + ".delta";
    if (::stat(delta.c_str(), &ds) == 0) std::printf("snapshot_10_changes_record_bytes %lld\n", static_cast<long long>(ds.st_size));
  }

  // The anchor: the same walk re-reading and re-hashing every file (no metadata index).
  {
    auto fs = open_real_tree(tree);
    if (!fs) return die(fs.error());
    ScanStats st;
    t0 = std::chrono::steady_clock::now();
    auto m = scan_root(**fs, tree, scope.excludes, nullptr, nullptr, st);
    if (!m) return die(m.error());
    std::printf("full_rehash_ms %.1f\nfull_rehash_files_read %llu\n", ms_since(t0),
                static_cast<unsigned long long>(st.files_hashed));
  }

  // Restore of the 10 files (to the snapshot before them).
  RestoreRequest req;
  req.session = session.id;
  req.target = idle->n;
  t0 = std::chrono::steady_clock::now();
  auto r = mgr.restore(req);
  if (!r) return die(r.error());
  std::printf("restore_10_files_ms %.1f\nrestore_changes %zu\n", ms_since(t0), r->changes.size());
  // Undoing that restore from a manager that holds nothing in memory, as `paddock undo restore`
  // in a new process does (everything from the store: deltas, no full manifest parsed).
  {
    SnapshotManager cold(**store);
    RestoreRequest back;
    back.session = session.id;
    back.target = r->before_snapshot;
    t0 = std::chrono::steady_clock::now();
    auto b = cold.restore(back);
    if (!b) return die(b.error());
    std::printf("restore_back_cold_ms %.1f\nrestore_back_changes %zu\n", ms_since(t0), b->changes.size());
  }

  // 10 more sessions of 10 changed files each.
  auto before = (*store)->object_bytes();
  for (int k = 1; k <= 10; ++k) {
    auto sk = mgr.begin(scope, {"bench"}, tree);
    if (!sk) return die(sk.error());
    SessionInfo ss = *sk;
    if (auto a = mgr.snapshot(ss, "before"); !a) return die(a.error());
    change_ten(tree, k);
    usleep(50000);
    if (auto b = mgr.snapshot(ss, "after"); !b) return die(b.error());
  }
  auto after = (*store)->object_bytes();
  if (!before || !after) return 1;
  std::printf("store_bytes_after_first %llu\nstore_bytes_after_10_sessions %llu\n",
              static_cast<unsigned long long>(*before), static_cast<unsigned long long>(*after));

  return runs_after_runs(**store, scope, tree);
}

int runs_after_runs(Store& store, const Scope& scope, const std::string& tree) {
  // `paddock run --undo` run after run (issue 29): each run a new process (a manager with nothing
  // in memory), its first snapshot seeded from the previous run's last (the seed file), 10 files
  // changed by the run, the last snapshot kept as the next run's seed. What undo adds to the run:
  // begin + first snapshot + last snapshot + seed. Five runs; the median, and each phase of it.
  {
    std::vector<double> total, first_ms, last_ms, seed_ms;
    std::uint64_t read_first = 0, read_last = 0;
    for (int k = 0; k < 5; ++k) {
      SnapshotManager run(store);
      auto t0 = std::chrono::steady_clock::now();
      auto sk = run.begin(scope, {"bench"}, tree);
      if (!sk) return die(sk.error());
      SessionInfo ss = *sk;
      auto a = run.snapshot(ss, "before run");
      if (!a) return die(a.error());
      const double t_first = ms_since(t0);
      change_ten(tree, 100 + k);  // the run
      auto t1 = std::chrono::steady_clock::now();
      auto b = run.snapshot(ss, "after run");
      if (!b) return die(b.error());
      const double t_last = ms_since(t1);
      auto t2 = std::chrono::steady_clock::now();
      if (auto w = run.save_seed(ss); !w) return die(w.error());
      const double t_seed = ms_since(t2);
      total.push_back(t_first + t_last + t_seed);
      first_ms.push_back(t_first);
      last_ms.push_back(t_last);
      seed_ms.push_back(t_seed);
      read_first = a->files_hashed;
      read_last = b->files_hashed;
      usleep(50000);  // between two runs
    }
    auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    // The floor of the same minute: the bare metadata walk, best of three.
    double floor = 1e18;
    for (int k = 0; k < 3; ++k) {
      int fd = ::open(tree.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return 1;
      auto t0 = std::chrono::steady_clock::now();
      floor_walk(fd);
      floor = std::min(floor, ms_since(t0));
      ::close(fd);
    }
    std::printf("undo_run_floor_walk_ms %.1f\nundo_run_ratio %.2f\n", floor, med(total) / floor);
    std::printf("undo_run_added_ms %.1f\nundo_run_first_snapshot_ms %.1f\nundo_run_last_snapshot_ms %.1f\n"
                "undo_run_seed_ms %.1f\nundo_run_files_read %llu %llu\n",
                med(total), med(first_ms), med(last_ms), med(seed_ms), static_cast<unsigned long long>(read_first),
                static_cast<unsigned long long>(read_last));
  }
  return 0;
}
