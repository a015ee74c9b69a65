#include "cli/undo_run.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "policy/units.h"
#include "cli/progress_line.h"
#include "cli/undo_notes.h"
#include "undo/checkpoint.h"
#include "undo/scope.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock::cli {

class UndoRun {
 public:
  std::unique_ptr<undo::Store> store;
  std::unique_ptr<undo::SnapshotManager> mgr;
  std::optional<undo::SessionInfo> session;
  std::string error;  // why undo is incomplete
  std::unique_ptr<undo::CheckpointServer> checkpoints;
  std::uint64_t budget = kDefaultUndoBudget;  // what checkpoints may add to the store
  std::uint64_t spent = 0;                    // what they added
  std::uint64_t stored = 0;                   // what every snapshot after the first added
  std::uint64_t store_quota = kDefaultStoreQuota;
};

void UndoRunDeleter::operator()(UndoRun* u) const { delete u; }

namespace {

// Progress on stderr, only for a snapshot that takes over a second (a first one, in practice):
// cli/progress_line.h. PADDOCK_UNDO_PROGRESS_AFTER_MS moves the second (a test hook).
undo::ScanProgress progress_printer(std::shared_ptr<ProgressLine> line) {
  return [line](const undo::ScanStats& s) {
    line->update([&](double secs) {
      return "undo: first snapshot: " + std::to_string(s.entries) + " files, " + format_size(s.bytes_read) + " read, " +
             format_size(static_cast<std::uint64_t>(s.bytes_read / secs)) + "/s";
    });
  };
}

}  // namespace

UndoRunPtr undo_before(const UndoRunFlags& f, const Policy& policy, const HostContext& ctx,
                       const std::vector<std::string>& command) {
  UndoRunPtr u(new UndoRun());
  u->budget = f.max_bytes;
  u->store_quota = f.store_quota;
  std::vector<undo::Exclude> ex;
  if (f.default_excludes) ex = undo::default_excludes();
  for (const auto& e : f.excludes) {
    const bool is_path = e.find('/') != std::string::npos;
    std::string pattern = e;
    while (is_path && !pattern.empty() && pattern.back() == '/') pattern.pop_back();
    ex.push_back({is_path ? undo::Exclude::Kind::Path : undo::Exclude::Kind::Name, pattern, "--undo-exclude"});
  }
  undo::Scope scope = undo::scope_from_policy(policy, ctx.state.masked(), std::move(ex));
  if (scope.roots.empty()) {
    u->error = "nothing to capture: the run has no writable directory";
    return u;
  }
  auto store = undo::Store::open(ctx.state.undo_dir, true);
  if (!store) {
    u->error = store.error().describe();
    return u;
  }
  u->store = std::move(*store);
  u->mgr = std::make_unique<undo::SnapshotManager>(*u->store);
  auto s = u->mgr->begin(scope, command, policy.cwd);
  if (!s) {
    u->error = s.error().describe();
    return u;
  }
  u->session = std::move(*s);
  u->session->budget = f.max_bytes;
  auto line = std::make_shared<ProgressLine>("PADDOCK_UNDO_PROGRESS_AFTER_MS");
  auto snap = u->mgr->snapshot(*u->session, "before run", progress_printer(line));
  line->finish();
  if (!snap) u->error = snap.error().describe();
  return u;
}

void undo_open_checkpoints(UndoRun& u, const UndoRunFlags& f, Policy& policy, RunOptions& opts) {
  if (!u.session || !u.error.empty()) return;
  // The handler runs on the server's thread while the sandbox runs; the main thread touches the
  // session again only after stop() (undo_after).
  UndoRun* run = &u;
  auto server = undo::CheckpointServer::start([run](const std::string& label) -> std::string {
    // Each checkpoint stores what changed since the snapshot before: together they may add at
    // most the run's budget to the store (issue 25, class 11), past which they are refused.
    const std::uint64_t left = run->budget > run->spent ? run->budget - run->spent : 0;
    bool over = false;
    auto snap = run->mgr->snapshot(*run->session, label.empty() ? "checkpoint" : label, {}, left, &over);
    if (over) {
      ++run->session->budget_refused;
      (void)run->store->save_session(*run->session);
      return "error refused: the checkpoints of this run have stored " + format_size(run->spent) +
             ", and this one would pass its undo budget of " + format_size(run->budget) +
             " ([undo] max_bytes, --undo-max-bytes)";
    }
    if (!snap) return "error the snapshot failed: " + snap.error().describe();
    run->spent += snap->bytes_new;
    run->stored += snap->bytes_new;
    return "ok " + run->session->id + ":" + std::to_string(snap->n) + " " + std::to_string(snap->files_hashed) +
           " file" + (snap->files_hashed == 1 ? "" : "s") + " read, " + std::to_string(snap->elapsed_us / 1000) + " ms";
  }, f.max_checkpoints, true);
  if (!server) {
    // Not fatal: the run still gets its first and last snapshots.
    std::fprintf(stderr, "[paddock] undo: no checkpoint channel: %s\n", server.error().describe().c_str());
    return;
  }
  u.checkpoints = std::move(*server);
  const int fd = u.checkpoints->sandbox_end();
  opts.pass_fds.push_back(fd);
  opts.checkpoint_socket = u.checkpoints->socket_path();
  policy.env.set.emplace_back(undo::kCheckpointFdEnv, std::to_string(fd));
}

std::vector<std::string> undo_after(UndoRun& u) {
  std::vector<std::string> lines;
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
  if (!u.error.empty()) {
    lines.push_back("undo: incomplete: " + u.error);
    if (u.session && !u.session->snapshots.empty()) {
      // The restore snapshots the tree first (the session is marked incomplete), then restores.
      lines.push_back("undo: paddock undo restore " + u.session->id +
                      ":0 brings back the tree as it was before the run (it snapshots the tree as it is first; "
                      "that needs room in the store)");
    }
    return lines;
  }
  const auto& s = *u.session;
  std::size_t changed = 0;
  if (auto ch = u.mgr->changes(s, 0, s.snapshots.back().n)) changed = ch->size();
  lines.push_back("undo: session " + s.id + ", " + std::to_string(changed) + " change" + (changed == 1 ? "" : "s") +
                  ", " + format_size(u.stored) + (u.stored < 1024 ? " bytes" : "") +
                  " stored after the first snapshot (paddock undo show " + s.id +
                  "); paddock undo restore " + s.id + " takes them back");
  for (const std::string& l : undo_budget_lines(s)) lines.push_back("undo: " + l);
  for (const std::string& l : undo_unreadable_lines(*u.store, s)) lines.push_back("undo: " + l);
  if (auto size = u.store->object_bytes_known(); size && *size > u.store_quota) {
    lines.push_back("undo: the store holds " + format_size(*size) + ", over its quota of " + format_size(u.store_quota) +
                    ": paddock undo prune" +
                    (u.store_quota == kDefaultStoreQuota ? std::string() : " --max-size " + format_size(u.store_quota)) +
                    " removes the oldest sessions until it fits");
  }
  return lines;
}

}  // namespace paddock::cli
