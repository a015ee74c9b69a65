// The undo store: one directory per user (StateLayout::undo_dir, paddock/state.h), outside every
// sandbox's reach (the policy masks all of paddock's state and refuses rules that name it).
//
//   <store>/VERSION                 "paddock-undo-store 1"
//   <store>/lock                    flock: one writer at a time (snapshot, restore, prune)
//   <store>/objects/ab/cdef…        file contents by SHA-256, shared by every session
//   <store>/sessions/<id>/session.json   the session: command, roots, excludes, snapshots
//   <store>/sessions/<id>/<n>.manifest   snapshot n in full (manifest.h): 0, every 32nd, and
//                                        every snapshot of a version 1 store
//   <store>/sessions/<id>/<n>.delta      snapshot n as a change to n-1 (n > 0, manifest.h)
//   <store>/sessions/<id>/0.delta        snapshot 0 as a change to another session's snapshot (its
//                                        base): a first snapshot seeded from an earlier session
//   <store>/seeds/<roots>           the last snapshot of a run, whole, to seed the next (seed.h)
//   <store>/journal                 a restore in progress (restore.h)
//   <store>/tmp/                    objects being written; emptied under the lock
//
// Every file is written to a temp name, fsynced and renamed; objects are written to tmp/, made
// durable with one syncfs and only then renamed into objects/, so an object's name always
// matches its content and a manifest only ever names durable objects.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "paddock/result.h"
#include "sys/unique_fd.h"
#include "undo/manifest.h"
#include "undo/seed.h"

namespace paddock::undo {

// 3: a session's snapshot 0 may be a delta against another session's snapshot; 2: deltas within
// a session (1: full manifests only). Older stores are still read, and marked with the version
// of the first thing written to them that an older paddock would misread (a delta: 2, a delta
// against another session: 3); until then a new store is marked 2.
inline constexpr int kStoreVersion = 3;
inline constexpr int kSessionDeltaStoreVersion = 2;
// A first snapshot stored against another session's makes a chain across sessions; after this
// many sessions in a row, the next first snapshot is stored in full (loading one without a seed
// reads the chain back to a full manifest).
inline constexpr int kMaxBaseChain = 32;
// A snapshot n with n % kFullEvery == 0 is also stored in full: materializing one costs at most
// one full manifest and kFullEvery - 1 deltas.
inline constexpr int kFullEvery = 32;

struct SnapshotInfo {
  int n = 0;
  std::string time;  // UTC, ISO 8601
  std::int64_t time_ns = 0;
  std::string label;
  std::uint64_t entries = 0;
  std::uint64_t files_hashed = 0;  // read because their metadata changed (or first snapshot)
  std::uint64_t bytes_read = 0;
  std::uint64_t objects_new = 0;  // objects the store did not have
  std::uint64_t bytes_new = 0;
  std::int64_t elapsed_us = 0;
};

struct SessionInfo {
  int version = kStoreVersion;
  std::string id;
  std::string created;  // UTC, ISO 8601
  std::int64_t created_ns = 0;
  std::vector<std::string> command;
  std::string cwd;
  std::vector<std::string> roots;
  std::vector<Exclude> excludes;
  std::vector<std::string> not_captured;  // writable paths left out of the scope, with why
  std::string home;  // the run's HOME ("" in sessions recorded before it was kept)
  // The run's undo budget: bytes its snapshots after the first may add to the store (0: none
  // recorded), and how many snapshots asked for from inside it refused.
  std::uint64_t budget = 0;
  int budget_refused = 0;
  std::vector<SnapshotInfo> snapshots;
  std::string incomplete;  // why the last snapshot could not be taken, if it could not
  // The snapshot of another session that snapshot 0 was seeded from and is stored against (its
  // 0.delta), when it was (seed.h): empty otherwise.
  std::string base_session;
  int base_snapshot = 0;
};

struct Journal {
  int version = kStoreVersion;
  std::string session;
  int target = 0;  // the snapshot being restored
  int before = 0;  // the snapshot of the tree as it was just before the restore
  std::vector<std::string> paths;  // absolute; empty: everything
};

class Store {
 public:
  // Opens the store at DIR (absolute, reached without symlinks). With CREATE, makes it (and its
  // missing parents, 0700). The directory must belong to the user and not be open to others.
  static Result<std::unique_ptr<Store>> open(const std::string& dir, bool create);

  const std::string& dir() const { return dir_; }
  // Unit tests on a fake tree skip the syncfs calls (they test the logic, not the disk).
  void set_syncfs(bool on) { syncfs_ = on; }

  // The writer's lock (blocks while another paddock holds it); leftovers in tmp/ are removed.
  Result<void> lock();

  // Copies SRC_FD's content into the store (pending until commit_objects), returns its hash.
  // *BYTES_NEW counts it when the store did not have it.
  Result<std::string> put_object(int src_fd, std::uint64_t* bytes_new, bool* is_new);
  // Makes pending objects durable and visible (fsync of each, together, or syncfs past kFsyncEach; rename
  // into objects/; the directories renamed into made durable).
  Result<void> commit_objects();
  static constexpr std::size_t kFsyncEach = 64;
  // Drops pending objects (a dry run, a refused restore, a failed scan).
  void discard_pending();
  Result<sys::UniqueFd> open_object(const std::string& hash) const;
  bool has_object(const std::string& hash) const;

  Result<std::vector<std::string>> session_ids() const;  // oldest first
  Result<SessionInfo> load_session(const std::string& id) const;
  Result<void> save_session(const SessionInfo& s);
  // Snapshot n in full: its full manifest, or the nearest full one before it with the deltas
  // after it applied.
  Result<Manifest> load_manifest(const std::string& id, int n) const;
  // The same, starting from SEED (seed.h) where the chain back from ID:N passes through the
  // snapshot it holds (its manifest is then moved out: SEED is empty after). HOPS: how many
  // sessions back that was (-1: not on the chain, and everything was read from the store).
  Result<Manifest> load_manifest_seeded(const std::string& id, int n, std::optional<Seed>& seed, int& hops) const;
  Result<void> save_manifest(const std::string& id, int n, const Manifest& m);
  // Snapshot n's delta against n-1; nullopt when n is stored only in full (n = 0, version 1).
  Result<std::optional<Delta>> load_delta(const std::string& id, int n) const;
  Result<void> save_delta(const std::string& id, int n, const Delta& d);
  // Snapshot n's roots with their start, excludes and notes, without their entries: from its
  // delta, else from its full manifest with the entry lines skipped.
  // (RootDelta without changes: meta and entry count.)
  Result<std::vector<RootDelta>> load_meta(const std::string& id, int n) const;
  // Removes session ID. A session whose snapshot 0 is stored against one of ID's gets it written
  // in full first (nothing is left depending on what is removed).
  Result<void> remove_session(const std::string& id);
  // How many sessions' snapshot 0 deltas lead from ID:N's nearest snapshot 0 to a full manifest
  // (0: ID's own snapshot 0 is stored in full).
  Result<int> base_chain(const std::string& id) const;

  // The seed of the roots it names (seed.h): written after a run's last snapshot.
  Result<void> save_seed(const Seed& s);
  // The seed of ROOTS; nullopt when there is none, or it is torn or another roots'.
  std::optional<Seed> load_seed(const std::vector<std::string>& roots) const;
  // The session of ROOTS that ended last (`seeds/<roots>.last`: written at the end of every run,
  // so that the next one need not read every session to find it); empty when unknown.
  Result<void> save_last(const std::vector<std::string>& roots, const std::string& session);
  std::string load_last(const std::vector<std::string>& roots) const;

  Result<std::optional<Journal>> load_journal() const;
  Result<void> save_journal(const Journal& j);
  Result<void> remove_journal();

  struct GcStats {
    std::uint64_t objects_kept = 0, objects_removed = 0, bytes_kept = 0, bytes_removed = 0;
  };
  // Removes every object no remaining manifest (nor a pending journal) names.
  Result<GcStats> collect_garbage();
  // Bytes in objects/ (du of the objects): a walk of every object.
  Result<std::uint64_t> object_bytes() const;
  // The same, as kept in objects.size since the last walk (each commit adds its objects; garbage
  // collection drops the file, so the next call walks): what a run compares with the store's quota
  // without walking 100,000s of objects. May lag behind by what a crash kept from being added.
  Result<std::uint64_t> object_bytes_known();

 private:
  Store() = default;
  Result<sys::UniqueFd> session_dir(const std::string& id, bool create) const;
  Result<Manifest> load_manifest_at(const std::string& id, int n, int hops, std::optional<Seed>& seed,
                                    int& seed_hops) const;
  Result<void> mark_version(int version);

  std::string dir_;
  sys::UniqueFd fd_, objects_, sessions_, tmp_, lock_;
  struct Pending {
    std::string tmp_name, hash;
  };
  std::vector<Pending> pending_;
  std::unordered_set<std::string> pending_hashes_;  // a first snapshot has 100,000s pending
  std::uint64_t tmp_counter_ = 0;
  bool syncfs_ = true;
  int version_ = kStoreVersion;  // of the VERSION file: 1 until the first delta is written
};

// A session id: UTC time and a random suffix ("20261126-165501-3fa2"): sortable, unguessable
// enough not to collide.
std::string new_session_id();
bool valid_session_id(const std::string& id);
std::string utc_iso(std::int64_t ns);

// Test hook: the Nth crash point reached from now on kills the process with SIGKILL (0: off).
// Crash points sit between every durable step of a snapshot and a restore. `paddock` sets it from
// PADDOCK_UNDO_CRASH_AT for the kill -9 trials.
void set_crash_after(long n);
void crash_point();

}  // namespace paddock::undo
