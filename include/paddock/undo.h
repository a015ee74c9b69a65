// Undo (issue 14, docs/undo.md): snapshots of what a sandboxed run may write, taken before the
// sandbox starts and after it is gone, and exact restores of them. The face every front end uses:
// `paddock run --undo` and `paddock undo` (src/cli), the C API (src/capi), an IDE.
//
// What this owns: the user's undo store (StateLayout::undo_dir, paddock/state.h), its sessions,
// what they changed, the two restores ("back to a snapshot", each by its name: UndoRestoreMeaning),
// pruning, and UndoRecorder, which wraps one run: the first snapshot, the checkpoint channel a
// command inside may ask for snapshots on, the last snapshot. What it may not touch: the sandbox
// (a recorder adds its channel to the run's options; the run is the caller's), anything outside a
// session's roots, and the terminal: it returns data and errors (Result), the caller prints them.
//
// Every name and link target in these values was chosen by a sandbox: print them escaped.
// The code is in src/undo/ (undo_store.cc, recorder.cc over SnapshotManager and Store).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock {

// A checkpoint stores only what changed since the snapshot before it, and an agent's turn changes
// KiBs to MiBs: 1 GiB is hundreds of heavy turns, and bounds what asking from inside can add.
inline constexpr std::uint64_t kDefaultUndoBudget = std::uint64_t{1} << 30;
// `paddock undo prune` without --max-size, and the size past which a run says to prune.
inline constexpr std::uint64_t kDefaultUndoStoreQuota = std::uint64_t{10} << 30;

struct UndoExclude {
  enum class Kind { Name, Path };
  Kind kind = Kind::Name;
  std::string pattern;  // Name: a file name matched at any depth; Path: relative to the root
  std::string why;      // "default", "profile x.toml", "--undo-exclude", "paddock's own state", ...
};

struct UndoSnapshot {
  int n = 0;
  std::string time;  // UTC, ISO 8601
  std::string label;
  std::uint64_t entries = 0;
  std::uint64_t files_hashed = 0;  // read because their metadata changed (or first snapshot)
  std::uint64_t objects_new = 0;   // objects the store did not have
  std::uint64_t bytes_new = 0;
  std::int64_t elapsed_us = 0;
};

struct UndoSessionData;  // src/undo: the store's own record, for the calls below

// A recorded run.
struct UndoSession {
  std::string id;
  std::string created;  // UTC, ISO 8601
  std::int64_t created_ns = 0;
  std::vector<std::string> command;
  std::string cwd;
  std::vector<std::string> roots;  // what it captured: absolute, canonical
  std::vector<UndoExclude> excludes;
  std::vector<std::string> not_captured;  // writable paths left out, with why
  // The run's undo budget (0: none recorded) and the checkpoints it refused.
  std::uint64_t budget = 0;
  int budget_refused = 0;
  std::vector<UndoSnapshot> snapshots;
  std::string incomplete;  // why the last snapshot could not be taken, if it could not
  std::shared_ptr<const UndoSessionData> data;  // opaque: what UndoStore's calls read back

  int last() const { return snapshots.empty() ? 0 : snapshots.back().n; }
};

enum class UndoEntryType : char { File = 'f', Dir = 'd', Symlink = 'l', Fifo = 'p', Other = 'o' };

// A path whose entry differs between two snapshots.
struct UndoChange {
  enum class Kind { Added, Modified, Deleted, Mode, Symlink, Type };
  Kind kind = Kind::Modified;
  std::string root;
  std::string path;  // relative to root ("": the root itself)
  UndoEntryType type = UndoEntryType::File;  // after (before, for Deleted)
  mode_t old_mode = 0, new_mode = 0;
  // A file's content on each side: the object in the store that holds it ("": no file there).
  std::string old_object, new_object;
  std::string old_target, new_target;  // symlinks

  std::string full_path() const { return path.empty() ? root : root + "/" + path; }
};
std::string_view to_string(UndoChange::Kind k);

// An entry a restore does not write: the gate names it as something the host runs or trusts
// (docs/undo.md). It, and what lies under it, stay as they are.
struct UndoHeld {
  std::string root;
  std::string path;         // relative to root
  std::string gate_class;   // the gate's class ("git", "host-run", ...)
  std::string why;          // what on the host runs or trusts it
  std::size_t below = 0;    // entries under it left with it
  // The target's entry, when it has one: its type, mode, and where its content or target is.
  std::optional<UndoEntryType> type;
  mode_t mode = 0;
  std::string object;  // a file's content in the store (read it with cat)
  std::string target;  // a symlink's target

  std::string full_path() const { return path.empty() ? root : root + "/" + path; }
};

// What "back to snapshot SESSION:N" takes back.
enum class UndoRestoreMeaning {
  // What the session did after snapshot N; later sessions' changes stay (`paddock undo revert`).
  SessionChanges,
  // The scope as it was at snapshot N: later sessions' changes are taken back too, the tree
  // snapshotted first (`paddock undo restore`).
  ScopeState,
};

struct UndoRestoreRequest {
  std::string session;
  int target = 0;
  std::vector<std::string> paths;  // absolute (undo_path_argument); empty: the whole scope
  bool force = false;              // overwrite what changed since paddock's last snapshot of it
  bool dry_run = false;            // the plan: nothing written
  UndoRestoreMeaning meaning = UndoRestoreMeaning::SessionChanges;
};

struct UndoRestoreOutcome {
  std::vector<UndoChange> changes;     // what the restore does (did)
  std::vector<std::string> conflicts;  // absolute paths changed since the last snapshot
  std::vector<UndoHeld> held;
  std::vector<LeftBehind> left_behind;  // what the gate's check after the writes moved aside
  bool applied = false;
  int before_snapshot = -1;  // the snapshot taken just before: restoring it undoes the restore
  std::vector<std::string> warnings;
  std::vector<std::string> later_sessions;  // ScopeState: whose changes are taken back too
};

// A restore a crash interrupted: what it was restoring, and once finished what it did.
struct UndoResumed {
  std::string session;
  int target = 0;
  UndoRestoreOutcome outcome;
};

// The project a directory belongs to (the git repository's top level, else the directory).
struct UndoProject {
  std::string dir;
  bool repository = false;
};

// The sessions a command looks at, oldest first.
struct UndoSessions {
  std::vector<UndoSession> sessions;
  std::optional<UndoProject> project;  // nullopt: every project's
  std::size_t in_store = 0;            // sessions in the store, every project's
  std::vector<Error> unreadable;       // sessions that could not be read (left out)
};

// SESSION[:N] resolved: the session named, or the newest of the scope.
struct UndoTarget {
  std::string session;
  int n = 0;
  bool newest = false;  // not named: the newest of the scope (below: whose, and what it captured)
  std::optional<UndoProject> project;
  std::vector<std::string> roots;
  std::vector<Error> unreadable;  // sessions of the store that could not be read (left out)
};

// What snapshot N could not read and so does not hold (a restore leaves it as it is).
struct UndoUnreadable {
  int n = 0;
  std::string error;               // the snapshot's record itself could not be read
  std::vector<std::string> paths;  // "root/path (why)"
};

struct UndoPruneOptions {
  int keep = -1;  // keep the N newest sessions (-1: any number)
  std::optional<std::chrono::milliseconds> older_than;
  std::uint64_t quota = kDefaultUndoStoreQuota;  // the oldest go until the objects fit
};

struct UndoPruneReport {
  std::size_t removed = 0, left = 0;
  std::uint64_t freed = 0;
  std::optional<std::uint64_t> size;  // the store's objects after (nullopt: could not be measured)
  std::uint64_t quota = 0;
};

class UndoStore {
 public:
  // The user's store where paddock/state.h lays it out; nothing is created.
  static Result<UndoStore> open_default();
  // The store at DIR (absolute, reached without symlinks); with CREATE, made when missing.
  // Without CREATE, DIR is read as a state layout's undo_dir, ".../paddock/undo": what lies
  // above its parent is resolved and "paddock/undo" opened below it (src/undo/store.cc).
  static Result<UndoStore> open(const std::string& dir, bool create);

  const std::string& dir() const;

  // A restore a crash interrupted, pending (its session and target; the outcome empty);
  // nullopt when none is.
  Result<std::optional<UndoResumed>> interrupted() const;
  // Finishes it (every undo command does that first); nullopt when none was pending.
  Result<std::optional<UndoResumed>> finish_interrupted();

  // Every session's id, oldest first, without reading them.
  Result<std::vector<std::string>> session_ids() const;
  // The sessions of the project CWD belongs to (HOME: not a project), or with ALL every one.
  // CWD empty: the process's current directory; HOME empty: $HOME.
  Result<UndoSessions> sessions(bool all, const std::string& cwd = {}, const std::string& home = {}) const;
  // "SESSION[:N]" (N defaults to DEFAULT_N), or "" / ":N" for the newest session of the scope
  // (as sessions()). The error says what the scope held when it holds none.
  Result<UndoTarget> target(const std::string& given, int default_n, bool all, const std::string& cwd = {},
                            const std::string& home = {}) const;
  Result<UndoSession> session(const std::string& id) const;

  // What changed from snapshot FROM to TO of S, in path order.
  Result<std::vector<UndoChange>> changes(const UndoSession& s, int from, int to);
  // What a restore to snapshot TARGET of S would hold back wherever it wrote it.
  Result<std::vector<UndoHeld>> held_back(const UndoSession& s, int target);
  // What snapshot N (-1: the last) of S could not read.
  UndoUnreadable unreadable(const UndoSession& s, int n = -1) const;

  // A restore (REQ.dry_run: its plan). Refused while an interrupted one is pending.
  Result<UndoRestoreOutcome> restore(const UndoRestoreRequest& req);
  // Removes the oldest sessions by the options, and the objects only they used (under the lock).
  Result<UndoPruneReport> prune(const UndoPruneOptions& o);

 private:
  struct Impl;
  explicit UndoStore(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// A path named on a restore's or a diff's command line, absolute as the store records roots:
// relative to the current directory, with what exists above it resolved (never the last part).
std::string undo_path_argument(const std::string& given);

// How one run is recorded: a profile's [undo] table and the run's flags.
struct UndoRecordOptions {
  bool enabled = false;
  std::vector<std::string> excludes;  // NAME or relative PATH (with a '/')
  bool default_excludes = true;       // node_modules, target, .venv
  int max_checkpoints = 500;          // snapshots a command inside may ask for
  // What the checkpoints asked for from inside may add to the store, together. The snapshot
  // before the run and the one after it are always taken.
  std::uint64_t max_bytes = kDefaultUndoBudget;
  std::uint64_t store_quota = kDefaultUndoStoreQuota;  // past it, the report says to prune
};

// The first snapshot's progress so far.
struct UndoScanProgress {
  std::uint64_t entries = 0;
  std::uint64_t bytes_read = 0;
};

// What a recorded run ended with.
struct UndoRecordReport {
  std::string incomplete;  // why undo is incomplete ("": complete)
  std::string session;     // "" when no session was begun
  bool has_snapshot = false;
  std::size_t changes = 0;  // from the first snapshot to the last
  std::uint64_t stored = 0;  // what every snapshot after the first added to the store
  std::uint64_t budget = 0;
  int budget_refused = 0;
  UndoUnreadable unreadable;  // of the last snapshot
  std::optional<std::uint64_t> over_quota;  // the store's size, when past the quota
  std::uint64_t store_quota = kDefaultUndoStoreQuota;
};

// One run, recorded: begin() before the sandbox exists, open_checkpoints() into its options,
// finish() after it is gone. A snapshot that fails never stops the run: the report says why undo
// is incomplete.
class UndoRecorder {
 public:
  // The first snapshot of POLICY's writable paths (minus paddock's state in CTX and the excludes).
  static UndoRecorder begin(const UndoRecordOptions& o, const Policy& policy, const HostContext& ctx,
                            const std::vector<std::string>& command,
                            const std::function<void(const UndoScanProgress&)>& progress = {});
  UndoRecorder(UndoRecorder&&) noexcept;
  UndoRecorder& operator=(UndoRecorder&&) noexcept;
  ~UndoRecorder();

  // The checkpoint channel: binds the socket at /.paddock/checkpoint (namespace mode) into OPTS,
  // passes its inherited end and sets PADDOCK_CHECKPOINT_FD in POLICY's environment; answers on a
  // thread until finish(). Nothing when the first snapshot failed. An error: no channel (not
  // fatal: the run still gets its first and last snapshots).
  Result<void> open_checkpoints(Policy& policy, RunOptions& opts);
  // The last snapshot (and the next run's seed).
  UndoRecordReport finish();

 private:
  struct Impl;
  explicit UndoRecorder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace paddock
