// Undo: snapshots of the paths a sandboxed run may write, and exact restores of them (issue 14).
//
// SnapshotManager is library code (the seed's SnapshotManager): it never forks, execs or talks
// to a sandbox. `paddock run --undo` calls it before the sandbox starts and after it is gone;
// `paddock undo` calls it to list, show, diff, restore and prune. It owns the store (store.h) and
// reads and writes only below the session's roots, through TreeFs (tree_fs.h), never following a
// symlink; it never touches an excluded path or one outside the roots.
//
// A restore is transactional: the tree as it is is snapshotted first (so a restore can itself be
// undone), a journal naming that snapshot and the target is written to the store, the changes are
// applied, and the journal is removed. After a crash, resume() finishes the restore from the
// journal: the tree ends as the target snapshot, never as a mix.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "paddock/result.h"
#include "undo/manifest.h"
#include "undo/restore_gate.h"
#include "undo/scan.h"
#include "undo/seed.h"
#include "undo/store.h"
#include "undo/tree_fs.h"

namespace paddock::undo {

// What a session captures.
struct Scope {
  std::vector<std::string> roots;  // absolute directories, none inside another
  // Name excludes apply in every root; a Path exclude is relative to every root, or absolute
  // (a sensitive path, paddock's own state): then it applies in the root that holds it.
  std::vector<Exclude> excludes;
  std::vector<std::string> not_captured;  // writable paths left out, with why ("a file: ...")
  std::string home;  // the run's HOME: what lies in it is judged as HOME's by a restore (restore_gate.h)
};

// The defaults: node_modules, target, .venv (build outputs and caches; `undo show` lists them,
// `[undo] excludes` / `include_defaults = false` change them). .git is captured: see docs/undo.md.
std::vector<Exclude> default_excludes();

struct Change {
  enum class Kind { Added, Modified, Deleted, Mode, Symlink, Type };
  Kind kind;
  std::string root;
  std::string path;  // relative to root
  EntryType type = EntryType::File;  // the entry's type after (before, for Deleted)
  mode_t old_mode = 0, new_mode = 0;
  std::string old_hash, new_hash, old_target, new_target;
};
std::string_view to_string(Change::Kind k);
// What changed from A to B (a manifest of the same roots), in path order.
std::vector<Change> diff_manifests(const Manifest& a, const Manifest& b);

// What a restore to SESSION:TARGET takes back (issue 30 item 5).
enum class RestoreMeaning {
  // What the session did after snapshot TARGET: the paths that differ between its last snapshot
  // and TARGET. Later sessions' changes, and paths the session did not change, stay as they are
  // (`paddock undo revert`).
  SessionChanges,
  // The scope as it was at snapshot TARGET: the tree is walked and snapshotted first (the
  // session's new last snapshot), then what differs from TARGET is restored. Every later
  // session's changes are taken back too, and edits made since outside paddock (listed, and in
  // the snapshot before, so the restore can be undone) (`paddock undo restore`).
  ScopeState,
};

struct RestoreRequest {
  std::string session;
  int target = 0;
  std::vector<std::string> paths;  // absolute; empty: the whole scope
  bool force = false;              // overwrite what changed since the session's last snapshot
  bool dry_run = false;
  RestoreMeaning meaning = RestoreMeaning::SessionChanges;
};

struct RestoreOutcome {
  std::vector<Change> changes;     // what the restore does (did), as a diff from the tree to the target
  std::vector<std::string> conflicts;  // absolute paths changed since the last snapshot
  // Entries of the target not written: the gate names them (restore_gate.h). They, and what lies
  // under them, stay as they are.
  std::vector<Held> held;
  // What the gate's check after the writes moved aside (restore_gate.h).
  std::vector<LeftBehind> left_behind;
  bool applied = false;
  int before_snapshot = -1;  // the snapshot taken just before (restore SESSION:N undoes the restore)
  std::vector<std::string> warnings;
  // ScopeState: the sessions that began after it and captured part of its roots (whose changes
  // are taken back too), oldest first.
  std::vector<std::string> later_sessions;
};

struct RestorePlan;  // snapshot_manager.cc

// A path whose entry (content, type or mode) differs between two snapshots A and B.
struct PathDiff {
  std::string path;
  std::optional<ManifestEntry> a, b;
};
// One root's differences, in path_less order, with each side's root data (start, excludes).
struct RootDiff {
  RootDelta a, b;  // each side's root data and entry count (no changes)
  std::vector<PathDiff> diffs;
};

class SnapshotManager {
 public:
  using TreeOpener = std::function<Result<std::shared_ptr<TreeFs>>(const std::string& root)>;
  // The real trees (open_real_tree) and the gate's real check around a restore's writes.
  explicit SnapshotManager(Store& store);
  // Tests: OPENER gives the tree at a root (a fake), CHECK stands for the gate's check after a
  // restore's writes (restore_gate.h; empty: none, for a fake tree the real check cannot see).
  SnapshotManager(Store& store, TreeOpener opener, WriteCheck check);

  // A new session (nothing snapshotted yet). Takes the store's lock.
  Result<SessionInfo> begin(const Scope& scope, const std::vector<std::string>& command, const std::string& cwd);
  // Snapshot n = session.snapshots.size(); the session is saved with it. The first snapshot of a
  // session is seeded from an earlier session's last snapshot of the same roots, when the store
  // has one (seed.h): only files whose metadata moved since are read, and it is stored as a delta
  // against that snapshot. A snapshot that would add
  // more than MAX_BYTES_NEW to the store (a run's undo budget) is not taken: its objects are
  // dropped, *OVER_BUDGET is set and the error says so (the session stays complete: its last
  // snapshot is still there).
  Result<SnapshotInfo> snapshot(SessionInfo& session, const std::string& label, const ScanProgress& progress = {},
                                std::uint64_t max_bytes_new = std::numeric_limits<std::uint64_t>::max(),
                                bool* over_budget = nullptr);

  // The session's last snapshot, kept whole as the seed of the next sessions with the same roots
  // (seed.h), unless the seed this session started from lies fewer than kSeedHops sessions back
  // (the next session reads the deltas after it): `paddock run --undo` calls it after its last
  // snapshot.
  Result<void> save_seed(const SessionInfo& s);

  // Sessions looked at for a seed (newest first), and how many sessions back a seed file may lie
  // before it is written anew.
  static constexpr int kSeedSearch = 16;
  static constexpr int kSeedHops = 8;

  // What changed from snapshot FROM to TO of S, in path order: diff_manifests of the two, from
  // the deltas between them (no full manifest parsed when they are there).
  Result<std::vector<Change>> changes(const SessionInfo& s, int from, int to);

  // A restore of the session REQ names to one of its snapshots. Refused while an interrupted
  // restore's journal is pending (resume() finishes that one first).
  Result<RestoreOutcome> restore(const RestoreRequest& req);
  // Finishes a restore a crash interrupted. Nothing to do: nullopt.
  Result<std::optional<RestoreOutcome>> resume();

  // The entries of snapshot TARGET of S that a restore to it would hold back wherever it wrote
  // them (what differs from snapshot 0 and the gate names), in path order: `undo show` lists them.
  Result<std::vector<Held>> held_back(const SessionInfo& s, int target);

 private:
  // What a new session S's first snapshot is seeded from (seed.h): nullopt when nothing is.
  std::optional<Seed> find_seed(const SessionInfo& s);
  Result<Manifest> scan(const SessionInfo& s, const Manifest* prev, bool store_objects, ScanStats& stats,
                        const ScanProgress& progress,
                        std::uint64_t max_bytes_new = std::numeric_limits<std::uint64_t>::max());
  // The same with the index given late: PREV_LATER is called before each root's walk, after its
  // listings are read ahead (scan.h).
  Result<Manifest> scan(const SessionInfo& s, const std::function<const Manifest*()>& prev_later, bool store_objects,
                        ScanStats& stats, const ScanProgress& progress,
                        std::uint64_t max_bytes_new = std::numeric_limits<std::uint64_t>::max());
  Result<void> execute(const struct RestorePlan& plan, std::vector<std::string>& warnings);
  // EXECUTE between the gate's check before and after; what the check moved aside goes to OUT.
  Result<void> execute_checked(const SessionInfo& s, const struct RestorePlan& plan, RestoreOutcome& out);
  Result<Trust> trust_for(const SessionInfo& s, int target);
  // RestoreMeaning::ScopeState: the sessions that began after S and captured part of its roots
  // (oldest first), and the tree of S's roots as it is now (walked, nothing stored: a dry run).
  Result<std::vector<std::string>> later_sessions(const SessionInfo& s);
  Result<Manifest> tree_now(const SessionInfo& s);
  // What paddock last recorded of S's scope: S's last snapshot and the last snapshots of the
  // kRecordedStates sessions with the same roots whose last snapshots are the newest. A
  // ScopeState restore refuses (unless forced) to change a path whose entry now none of them
  // holds: an edit made outside paddock since, in no snapshot.
  static constexpr std::size_t kRecordedStates = 8;
  Result<std::vector<Manifest>> recorded_states(const SessionInfo& s);
  // Each root of snapshot B of S against A's, from the manifests in full.
  Result<std::vector<RootDiff>> diff_with(const Manifest& a, const SessionInfo& s, int b);

  // A restore's view of one root: only the paths that differ between the last snapshot and the
  // target (and the directories above them), each as the last snapshot, the target and the tree
  // now have it.
  struct Region {
    RootManifest last, target, current;  // entries of the paths looked at, sorted
    // The paths a derived snapshot records afresh (the changed ones, what was added in a removed
    // directory), sorted, with their entries in the snapshot it is derived from.
    std::vector<std::string> recorded;
    std::vector<std::optional<ManifestEntry>> base;
    bool need_full_base = false;  // a directory above a change was recreated: BASE is not enough
    std::optional<ManifestEntry> now(const std::string& path) const;
  };
  Result<std::vector<RootDiff>> changes_between(const SessionInfo& s, int a, int b);
  // The paths CHANGES names whose entry now (REGS) none of RECORDED holds (recorded_states).
  static std::vector<std::string> unrecorded(const std::vector<Region>& regs, const std::vector<Change>& changes,
                                             const std::vector<Manifest>& recorded);
  Result<std::optional<ManifestEntry>> current_entry(TreeFs& fs, const std::string& root, const std::string& path,
                                                     const ManifestEntry* known, std::int64_t trusted_before,
                                                     bool store_objects, ScanStats& stats);
  Result<std::vector<Region>> regions(const SessionInfo& s, const std::vector<RootDiff>& diffs,
                                      const std::vector<std::string>& paths, int target, bool store_objects,
                                      ScanStats& stats);
  Result<void> refresh(std::vector<Region>& regs, ScanStats& stats);
  Result<void> remove_leftovers(const std::vector<Region>& regs);
  Result<void> record_derived(SessionInfo& s, SnapshotInfo info, const std::vector<Region>& regs,
                              std::vector<RootDelta>& base_meta, const Manifest* base_full);
  Result<void> finish(SessionInfo& s, const std::string& label, std::vector<Region>& regs,
                      std::vector<RootDelta>& base_meta, const Manifest* base_full);
  // Snapshot n of S as a delta against the previous one PREV (and in full when n is due).
  Result<void> save_snapshot(const SessionInfo& s, int n, const Manifest& m, const Manifest* prev);
  std::vector<Exclude> excludes_for(const SessionInfo& s, const std::string& root) const;

  // The manifest of a session's latest snapshot, as this manager wrote or read it: the next
  // snapshot's metadata index without parsing it again. Valid while the store's lock is held
  // (no other writer), which a manager keeps from its first call on.
  const Manifest* cached(const std::string& id, int n) const;
  void remember(const std::string& id, int n, Manifest m);

  Store& store_;
  TreeOpener opener_;
  WriteCheck check_;
  struct Cached {
    std::string id;
    int n = -1;
    Manifest m;
  };
  std::optional<Cached> last_;
  bool seed_current_ = false;  // the seed file lies few sessions back (find_seed)
};

}  // namespace paddock::undo
