// Persistent jails (issue 15): a named, durable place where an agent works, kept between runs.
//
// What this owns: the jail store (the roots under $XDG_STATE_HOME/paddock/jails/<name>/, or
// /var/lib/paddock/jails for root), its versioned runtime/runtime.json, the lock that makes
// concurrent execs safe, the workspaces (host, copy, worktree) and what a jail changed against
// its source (diff, patch, sync). What it may not touch: the sandbox itself. A jail run is an
// ordinary paddock run whose project is the workspace and whose HOME is the jail's; the
// engine builds it from the same Policy (exec() below: a paddock/run.h request with the jail as
// its project).
//
// Every path under a jail root that a sandbox can write (the workspace, the stable HOME) is
// read by paddock without following symlinks: a run may have planted them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "paddock/result.h"
#include "paddock/run.h"
#include "paddock/sandbox.h"

namespace paddock::jail {

enum class WorkspaceMode { Host, Copy, Overlay, Worktree };
enum class HomeMode { Stable, Temporary };
std::string_view to_string(WorkspaceMode m);
std::string_view to_string(HomeMode m);
Result<WorkspaceMode> parse_workspace_mode(std::string_view s);
Result<HomeMode> parse_home_mode(std::string_view s);

// A jail name: 1 to 64 bytes of [A-Za-z0-9._-], not starting with '.' or '-' (so never "..",
// never a path, never an option, never a control byte).
inline constexpr std::size_t kMaxNameLength = 64;
Result<void> check_name(std::string_view name);

// runtime/runtime.json. Paths are absolute and stable across reboots.
inline constexpr const char* kRuntimeFormat = "paddock.jail/1";
struct Runtime {
  std::string name;
  std::string jail_root;       // <store>/<name>
  std::string profile;         // the profile runs use unless --profile says otherwise
  std::string profile_root;    // where the profile's file lives ("" for a built-in profile)
  WorkspaceMode workspace_mode = WorkspaceMode::Copy;
  std::string workspace_root;  // the directory the command runs in (the source itself for host)
  HomeMode home_mode = HomeMode::Stable;
  std::string home_root;       // <jail_root>/home (kept even when temporary, empty then)
  std::string source;          // the directory the workspace was made from
  std::string backend = "native";
  std::int64_t created = 0;    // seconds since the epoch
  std::int64_t last_used = 0;
  std::optional<std::uint64_t> max_size_bytes;  // checked before each exec
  // worktree mode
  std::string git_branch;      // paddock/<name>
  std::string git_base;        // the source's HEAD commit when the jail was made
  std::string git_dir;         // the worktree's own git directory (<common>/worktrees/<id>)
  std::string git_common_dir;  // the source repository's .git
};
nlohmann::json runtime_to_json(const Runtime& r);
// `file` is named in every error.
Result<Runtime> runtime_from_json(const nlohmann::json& j, const std::string& file);

// Holds runtime/lock: shared while a command runs in the jail (several may), exclusive while the
// jail is removed, pruned or synced. Released when destroyed.
class Lock {
 public:
  Lock() = default;
  explicit Lock(int fd) : fd_(fd) {}
  Lock(Lock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Lock& operator=(Lock&& o) noexcept;
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  ~Lock();
  // Records a use of the jail: the lock file's mtime, which load() reads as last_used (no
  // rewrite and fsync of runtime.json on every exec).
  void touch() const;

 private:
  int fd_ = -1;
};

struct CopyStats;  // below, with copy_tree

struct CreateOptions {
  std::string name;
  WorkspaceMode workspace = WorkspaceMode::Copy;
  HomeMode home = HomeMode::Stable;
  std::string source;   // absolute; the current directory by default (the CLI fills it in)
  std::string profile = "default";
  std::string profile_root;
  std::string backend = "native";
  std::optional<std::uint64_t> max_size_bytes;
  // copy: called with the figures so far while the source is copied (it may take a while).
  std::function<void(const CopyStats&)> progress;
};

// The store: one directory holding a directory per jail.
class Store {
 public:
  // StateLayout::jails_dir of this process (paddock/state.h): $PADDOCK_JAILS_DIR if set, else
  // /var/lib/paddock/jails for root, else $XDG_STATE_HOME/paddock/jails
  // (~/.local/state/paddock/jails); masked in every sandbox wherever it is. Created 0700 when missing;
  // refused when it (or its parent paddock directory) is a symlink, not owned by the caller or
  // writable by others.
  static Result<Store> open_default();
  static Result<Store> open(std::string dir);
  // Where open_default() opens, without creating anything.
  static Result<std::string> default_dir();

  const std::string& dir() const { return dir_; }
  std::string root_of(std::string_view name) const { return dir_ + "/" + std::string(name); }

  Result<Runtime> create(const CreateOptions& o);
  // Reads runtime.json and checks the jail's roots (owner, not writable by others, no symlinks).
  Result<Runtime> load(std::string_view name) const;
  Result<std::vector<Runtime>> list() const;  // by name; a damaged jail is an error naming it
  Result<void> save(const Runtime& r) const;  // temp file + fsync + rename
  // Removes the jail's root (never following a symlink in it) and, for a worktree, the
  // worktree's registration and branch in the source repository is left alone (the branch may
  // hold the user's work): `git worktree prune` there forgets it.
  Result<void> remove(std::string_view name) const;
  // Shared for exec, exclusive for rm/prune/sync. Non-blocking: a busy jail is an error.
  Result<Lock> lock(std::string_view name, bool exclusive) const;

 private:
  explicit Store(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// `jail exec` (and `jail enter`, whose command is a shell): REQ (paddock/run.h) run in the jail
// NAME, under its shared lock: its workspace as the project, its HOME when stable, its backend
// and profile unless REQ names others, PADDOCK_JAIL set; a worktree's git grants and repository
// guard (whose lines come back in RunOutcome::closing). Refused with exit code 1 when the jail
// cannot be loaded or locked (rm, prune or sync holds it) or uses more than its size cap, 2 for
// a backend that does not exist.
RunOutcome exec(const Store& st, std::string_view name, RunRequest req);

// `jail rm`: refused while a command runs in the jail (its lock), and unless FORCE while it
// holds work not in its source (unsynced(), listed in the error); then Store::remove.
Result<void> remove_jail(const Store& st, std::string_view name, bool force);

// Bytes used under a directory (allocated blocks), never following symlinks or crossing into
// other filesystems' mount points.
Result<std::uint64_t> disk_usage(const std::string& dir);

// Refuses DIR when it is not a directory owned by `uid` or writable by group or others.
Result<void> check_root(const std::string& dir, uid_t uid, std::string_view what);

// Copies the tree SRC into DST (which must not exist): regular files by reflink (FICLONE) where
// the filesystem can, else copy_file_range; directories, modes and symlinks (as links, never
// followed) preserved; other objects (sockets, FIFOs, devices) skipped. Nothing outside SRC is
// read. Returns the number of files copied by reflink and in all.
struct CopyStats {
  std::uint64_t files = 0, reflinked = 0, bytes = 0, symlinks = 0, dirs = 0, skipped = 0;
};
// Called with the figures so far after each entry copied (the CLI's progress line).
using CopyProgress = std::function<void(const CopyStats&)>;
Result<CopyStats> copy_tree(const std::string& src, const std::string& dst);

// What a jail changed against its source.
struct Change {
  char kind = 'M';  // 'A' added, 'M' modified (content, mode or type), 'D' deleted
  std::string path;  // relative to the workspace
  // Non-empty: sync never publishes it (the host runs or trusts it, by the gate's judge_path, or
  // it is a repository nested in the workspace), and why. `jail diff` shows it, marked.
  std::string held;
};
// Files the source's ignore rules left out of a diff or sync (docs/jails.md, "Ignored files"):
// diff and every sync leave them out unless asked to include them.
enum class Ignored { LeaveOut, Include };
struct IgnoredCount {
  std::size_t files = 0;    // left out in all
  std::size_t by_jail = 0;  // of them, by .gitignore files the jail wrote (the source's rules keep them)
};
struct Diff {
  std::vector<Change> changes;
  IgnoredCount ignored;
  // git-style, applicable with `git apply` (binary hunks included). Each held change's part is
  // preceded by a line "# paddock: held back by sync: WHY" (git apply skips such lines); with
  // publishable_only they are left out: what every sync publishes.
  std::string patch;
};
Result<Diff> diff(const Runtime& r, bool with_patch, bool publishable_only = false,
                  Ignored ignored = Ignored::LeaveOut);

// What `jail rm` would lose: a copy or overlay workspace's changes not applied to the source; a
// worktree's changes beyond the commit it is at (its commits stay on its branch). Files the
// source's ignore rules ignore are not counted (a build's output is not work to lose).
Result<std::vector<Change>> unsynced(const Runtime& r);

// What a sync published, and what it held back.
struct Published {
  std::string commit;                   // --to-branch: the branch's commit
  std::vector<Change> applied;          // --apply: what was written into the source
  std::vector<Change> held;             // never published, with the reason (Change::held)
  std::vector<LeftBehind> left_behind;  // --apply: what the gate's check after it moved aside
  IgnoredCount ignored;                 // left out by the ignore rules
  std::vector<Change> written;          // --patch: what the patch holds
  std::string source;                   // sync(): the jail's source directory
};

// To a new branch of the source repository: worktree mode, a commit holding the workspace as it
// is, on top of the jail's own commits (which must have come through the verifying import of
// its objects), authored as git is configured; copy and overlay, the jail's patch applied to the
// source's HEAD. Held changes are not in the branch's tree (it keeps HEAD's or the starting
// commit's version there). The source's work tree is not touched.
Result<Published> sync_to_branch(const Runtime& r, const std::string& branch, Ignored ignored = Ignored::LeaveOut);
// Into the source's files: refused, listing them, when a file the jail changed was also changed
// in the source since the jail was made or last synced (those files are also in *REFUSED, when
// given); what an earlier --apply wrote there is the jail's own, not a change of the source's.
// Held changes are never written; the gate checks the source after the write.
Result<Published> sync_apply(const Runtime& r, std::vector<std::string>* refused = nullptr,
                             Ignored ignored = Ignored::LeaveOut);

// `jail sync`: one of the three above, for the jail NAME under its exclusive lock (refused while a
// command runs in it). Patch: the diff every sync publishes (held changes left out) written to
// FILE (its directory opened with no symlink followed; temp file, fsync, rename). `refused` as
// for sync_apply.
struct SyncTo {
  enum class Kind { Patch, Branch, Apply };
  Kind kind = Kind::Apply;
  std::string target;  // the patch file or the branch
};
Result<Published> sync(const Store& st, std::string_view name, const SyncTo& to, Ignored ignored = Ignored::LeaveOut,
                       std::vector<std::string>* refused = nullptr);

// `jail show`: the jail and the bytes it uses (none when they cannot be measured).
struct Shown {
  Runtime runtime;
  std::optional<std::uint64_t> size_bytes;
};
Result<Shown> show(const Store& st, std::string_view name);

// `jail prune`: the jails last used longer ago than `older_than`, and then the least recently
// used ones while all of them together use more than `max_total` (either may be absent, not
// both). Each is removed under its exclusive lock; a jail in use is skipped (its step says why),
// a jail that cannot be measured counts as 0 bytes and is named in `unmeasured`.
struct PruneOptions {
  std::optional<std::chrono::milliseconds> older_than;
  std::optional<std::uint64_t> max_total;
  bool dry_run = false;
  std::int64_t now = 0;  // seconds since the epoch; 0: the clock's
};
struct PruneStep {
  Runtime jail;
  std::uint64_t size_bytes = 0;
  std::optional<Error> refused;       // not removed: it could not be locked
  std::optional<Error> remove_error;  // locked, and removing it failed
};
struct Pruned {
  std::vector<Error> unmeasured;  // "jail NAME: size unknown, counted as 0: ..."
  std::vector<PruneStep> steps;   // least recently used first: each jail picked
  int removed = 0;                // (or that would be, with dry_run)
};
Result<Pruned> prune(const Store& st, const PruneOptions& o);

}  // namespace paddock::jail
