// UndoRecorder (paddock/undo.h): one run recorded. The first snapshot before the sandbox
// exists, the checkpoint channel while it runs (undo/checkpoint.h), the last snapshot after it
// is gone. A snapshot that fails never stops the run: the report says why undo is incomplete.
#include <optional>
#include <utility>

#include "paddock/undo.h"
#include "policy/units.h"
#include "undo/checkpoint.h"
#include "undo/public_values.h"
#include "undo/scope.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock {

struct UndoRecorder::Impl {
  std::unique_ptr<undo::Store> store;
  std::unique_ptr<undo::SnapshotManager> mgr;
  std::optional<undo::SessionInfo> session;
  std::string error;  // why undo is incomplete
  std::unique_ptr<undo::CheckpointServer> checkpoints;
  int max_checkpoints = 500;
  std::uint64_t budget = kDefaultUndoBudget;  // what checkpoints may add to the store
  std::uint64_t spent = 0;                    // what they added
  std::uint64_t stored = 0;                   // what every snapshot after the first added
  std::uint64_t store_quota = kDefaultUndoStoreQuota;

  // A checkpoint asked for from inside: the line the channel answers with.
  std::string checkpoint(const std::string& label);
};

UndoRecorder::UndoRecorder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UndoRecorder::UndoRecorder(UndoRecorder&&) noexcept = default;
UndoRecorder& UndoRecorder::operator=(UndoRecorder&&) noexcept = default;
UndoRecorder::~UndoRecorder() = default;

UndoRecorder UndoRecorder::begin(const UndoRecordOptions& o, const Policy& policy, const HostContext& ctx,
                                 const std::vector<std::string>& command,
                                 const std::function<void(const UndoScanProgress&)>& progress) {
  auto u = std::make_unique<Impl>();
  u->budget = o.max_bytes;
  u->store_quota = o.store_quota;
  u->max_checkpoints = o.max_checkpoints;
  std::vector<undo::Exclude> ex;
  if (o.default_excludes) ex = undo::default_excludes();
  for (const auto& e : o.excludes) {
    const bool is_path = e.find('/') != std::string::npos;
    std::string pattern = e;
    while (is_path && !pattern.empty() && pattern.back() == '/') pattern.pop_back();
    ex.push_back({is_path ? undo::Exclude::Kind::Path : undo::Exclude::Kind::Name, pattern, "--undo-exclude"});
  }
  undo::Scope scope = undo::scope_from_policy(policy, ctx.state.masked(), std::move(ex));
  if (scope.roots.empty()) {
    u->error = "nothing to capture: the run has no writable directory";
    return UndoRecorder(std::move(u));
  }
  auto store = undo::Store::open(ctx.state.undo_dir, true);
  if (!store) {
    u->error = store.error().describe();
    return UndoRecorder(std::move(u));
  }
  u->store = std::move(*store);
  u->mgr = std::make_unique<undo::SnapshotManager>(*u->store);
  auto s = u->mgr->begin(scope, command, policy.cwd);
  if (!s) {
    u->error = s.error().describe();
    return UndoRecorder(std::move(u));
  }
  u->session = std::move(*s);
  u->session->budget = o.max_bytes;
  undo::ScanProgress scan_progress;
  if (progress) {
    scan_progress = [&progress](const undo::ScanStats& st) { progress(UndoScanProgress{st.entries, st.bytes_read}); };
  }
  auto snap = u->mgr->snapshot(*u->session, "before run", scan_progress);
  if (!snap) u->error = snap.error().describe();
  return UndoRecorder(std::move(u));
}

std::string UndoRecorder::Impl::checkpoint(const std::string& label) {
  // Each checkpoint stores what changed since the snapshot before: together they may add at
  // most the run's budget to the store (issue 25, class 11), past which they are refused.
  const std::uint64_t left = budget > spent ? budget - spent : 0;
  bool over = false;
  auto snap = mgr->snapshot(*session, label.empty() ? "checkpoint" : label, {}, left, &over);
  if (over) {
    ++session->budget_refused;
    (void)store->save_session(*session);
    return "error refused: the checkpoints of this run have stored " + format_size(spent) +
           ", and this one would pass its undo budget of " + format_size(budget) +
           " ([undo] max_bytes, --undo-max-bytes)";
  }
  if (!snap) return "error the snapshot failed: " + snap.error().describe();
  spent += snap->bytes_new;
  stored += snap->bytes_new;
  return "ok " + session->id + ":" + std::to_string(snap->n) + " " + std::to_string(snap->files_hashed) + " file" +
         (snap->files_hashed == 1 ? "" : "s") + " read, " + std::to_string(snap->elapsed_us / 1000) + " ms";
}

Result<void> UndoRecorder::open_checkpoints(Policy& policy, RunOptions& opts) {
  Impl& u = *impl_;
  if (!u.session || !u.error.empty()) return {};
  // The handler runs on the server's thread while the sandbox runs; the main thread touches the
  // session again only after stop() (finish()). Impl stays where it is when the recorder moves.
  Impl* run = &u;
  auto server = undo::CheckpointServer::start([run](const std::string& label) { return run->checkpoint(label); },
                                              u.max_checkpoints, true);
  if (!server) return std::move(server).take_error();
  u.checkpoints = std::move(*server);
  const int fd = u.checkpoints->sandbox_end();
  opts.pass_fds.push_back(fd);
  opts.checkpoint_socket = u.checkpoints->socket_path();
  policy.env.set.emplace_back(undo::kCheckpointFdEnv, std::to_string(fd));
  return {};
}

UndoRecordReport UndoRecorder::finish() {
  Impl& u = *impl_;
  UndoRecordReport r;
  r.store_quota = u.store_quota;
  if (u.checkpoints) {
    u.checkpoints->stop();
    u.checkpoints->close_sandbox_end();
  }
  if (u.session && u.error.empty()) {
    auto snap = u.mgr->snapshot(*u.session, "after run");
    if (!snap) {
      u.error = snap.error().describe();
    } else {
      u.stored += snap->bytes_new;
      // The next run's first snapshot starts from this one (a cache: without it, that run reads
      // this snapshot from the store instead).
      (void)u.mgr->save_seed(*u.session);
    }
  }
  r.incomplete = u.error;
  if (u.session) {
    r.session = u.session->id;
    r.has_snapshot = !u.session->snapshots.empty();
  }
  if (!u.error.empty()) return r;
  const undo::SessionInfo& s = *u.session;
  if (auto ch = u.mgr->changes(s, 0, s.snapshots.back().n)) r.changes = ch->size();
  r.stored = u.stored;
  r.budget = s.budget;
  r.budget_refused = s.budget_refused;
  r.unreadable = undo::unreadable_of(*u.store, s);
  if (auto size = u.store->object_bytes_known(); size && *size > u.store_quota) r.over_quota = *size;
  return r;
}

}  // namespace paddock
