#include "cli/undo_run.h"

#include <cstdio>
#include <memory>

#include "cli/progress_line.h"
#include "cli/undo_notes.h"
#include "policy/units.h"

namespace paddock::cli {

UndoRecorder begin_undo(const UndoRunFlags& f, const Policy& policy, const HostContext& ctx,
                        const std::vector<std::string>& command) {
  // Progress on stderr, only for a snapshot that takes over a second (a first one, in practice):
  // cli/progress_line.h. PADDOCK_UNDO_PROGRESS_AFTER_MS moves the second (a test hook).
  auto line = std::make_shared<ProgressLine>("PADDOCK_UNDO_PROGRESS_AFTER_MS");
  auto progress = [line](const UndoScanProgress& s) {
    line->update([&](double secs) {
      return "undo: first snapshot: " + std::to_string(s.entries) + " files, " + format_size(s.bytes_read) + " read, " +
             format_size(static_cast<std::uint64_t>(s.bytes_read / secs)) + "/s";
    });
  };
  UndoRecorder u = UndoRecorder::begin(f, policy, ctx, command, progress);
  line->finish();
  return u;
}

void open_undo_checkpoints(UndoRecorder& u, Policy& policy, RunOptions& opts) {
  // Not fatal: the run still gets its first and last snapshots.
  if (auto r = u.open_checkpoints(policy, opts); !r)
    std::fprintf(stderr, "[paddock] undo: no checkpoint channel: %s\n", r.error().describe().c_str());
}

std::vector<std::string> undo_report_lines(const UndoRecordReport& r) {
  std::vector<std::string> lines;
  if (!r.incomplete.empty()) {
    lines.push_back("undo: incomplete: " + r.incomplete);
    if (!r.session.empty() && r.has_snapshot) {
      // The restore snapshots the tree first (the session is marked incomplete), then restores.
      lines.push_back("undo: paddock undo restore " + r.session +
                      ":0 brings back the tree as it was before the run (it snapshots the tree as it is first; "
                      "that needs room in the store)");
    }
    return lines;
  }
  lines.push_back("undo: session " + r.session + ", " + std::to_string(r.changes) + " change" +
                  (r.changes == 1 ? "" : "s") + ", " + format_size(r.stored) + (r.stored < 1024 ? " bytes" : "") +
                  " stored after the first snapshot (paddock undo show " + r.session + "); paddock undo restore " +
                  r.session + " takes them back");
  for (const std::string& l : undo_budget_lines(r.budget_refused, r.budget)) lines.push_back("undo: " + l);
  for (const std::string& l : undo_unreadable_lines(r.unreadable)) lines.push_back("undo: " + l);
  if (r.over_quota) {
    lines.push_back("undo: the store holds " + format_size(*r.over_quota) + ", over its quota of " +
                    format_size(r.store_quota) + ": paddock undo prune" +
                    (r.store_quota == kDefaultUndoStoreQuota ? std::string() : " --max-size " + format_size(r.store_quota)) +
                    " removes the oldest sessions until it fits");
  }
  return lines;
}

}  // namespace paddock::cli
