#include "cli/undo_run.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "policy/state_paths.h"
#include "policy/units.h"
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
};

void UndoRunDeleter::operator()(UndoRun* u) const { delete u; }

namespace {

// Progress on stderr, only for a snapshot that takes over a second (a first one, in practice).
undo::ScanProgress progress_printer(bool& printed) {
  auto start = std::chrono::steady_clock::now();
  return [start, &printed](const undo::ScanStats& s) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (secs < 1.0) return;
    printed = true;
    std::fprintf(stderr, "\r[paddock] undo: first snapshot: %llu files, %s read, %s/s   ",
                 static_cast<unsigned long long>(s.entries), format_size(s.bytes_read).c_str(),
                 format_size(static_cast<std::uint64_t>(s.bytes_read / secs)).c_str());
  };
}

}  // namespace

UndoRunPtr undo_before(const UndoRunFlags& f, const Policy& policy, const HostContext& ctx,
                       const std::vector<std::string>& command) {
  UndoRunPtr u(new UndoRun());
  std::vector<undo::Exclude> ex;
  if (f.default_excludes) ex = undo::default_excludes();
  for (const auto& e : f.excludes) {
    const bool is_path = e.find('/') != std::string::npos;
    std::string pattern = e;
    while (is_path && !pattern.empty() && pattern.back() == '/') pattern.pop_back();
    ex.push_back({is_path ? undo::Exclude::Kind::Path : undo::Exclude::Kind::Name, pattern, "--undo-exclude"});
  }
  undo::Scope scope = undo::scope_from_policy(policy, paddock_state_dir(ctx), std::move(ex));
  if (scope.roots.empty()) {
    u->error = "nothing to capture: the run has no writable directory";
    return u;
  }
  auto store = undo::Store::open(undo::Store::default_dir(), true);
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
  bool printed = false;
  auto snap = u->mgr->snapshot(*u->session, "before run", progress_printer(printed));
  if (printed) std::fputc('\n', stderr);
  if (!snap) u->error = snap.error().describe();
  return u;
}

std::vector<std::string> undo_after(UndoRun& u) {
  std::vector<std::string> lines;
  if (u.session && u.error.empty()) {
    auto snap = u.mgr->snapshot(*u.session, "after run");
    if (!snap) u.error = snap.error().describe();
  }
  if (!u.error.empty()) {
    lines.push_back("undo: incomplete: " + u.error);
    if (u.session && !u.session->snapshots.empty()) {
      lines.push_back("undo: paddock undo restore " + u.session->id + ":0 brings back the tree as it was before the run");
    }
    return lines;
  }
  const auto& s = *u.session;
  std::size_t changed = 0;
  if (auto ch = u.mgr->changes(s, 0, s.snapshots.back().n)) changed = ch->size();
  lines.push_back("undo: session " + s.id + ", " + std::to_string(changed) + " change" + (changed == 1 ? "" : "s") +
                  " (paddock undo show " + s.id + "); paddock undo restore " + s.id + " takes them back");
  return lines;
}

}  // namespace paddock::cli
