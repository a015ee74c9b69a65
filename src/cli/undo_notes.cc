#include "cli/undo_notes.h"

#include "policy/units.h"

namespace paddock::cli {

std::vector<std::string> undo_budget_lines(const undo::SessionInfo& s) {
  if (s.budget_refused == 0) return {};
  return {std::to_string(s.budget_refused) + " checkpoint" + (s.budget_refused == 1 ? " was" : "s were") +
          " refused: together with the ones before, " + (s.budget_refused == 1 ? "it" : "they") +
          " would have stored more than the run's undo budget of " + format_size(s.budget) +
          " ([undo] max_bytes, --undo-max-bytes)"};
}

std::vector<std::string> undo_unreadable_lines(const undo::Store& store, const undo::SessionInfo& s, int n) {
  if (s.snapshots.empty()) return {};
  if (n < 0) n = s.snapshots.back().n;
  auto meta = store.load_meta(s.id, n);
  if (!meta) return {"snapshot :" + std::to_string(n) + " cannot be read: " + meta.error().describe()};
  std::vector<std::string> paths;
  for (const auto& r : *meta)
    for (const auto& e : r.meta.excludes)
      if (e.why.rfind("unreadable: ", 0) == 0) paths.push_back(r.meta.root + "/" + e.pattern + " (" + e.why + ")");
  if (paths.empty()) return {};
  std::vector<std::string> out{std::to_string(paths.size()) + " path" + (paths.size() == 1 ? "" : "s") +
                               " could not be read and " + (paths.size() == 1 ? "is" : "are") + " not in snapshot :" +
                               std::to_string(n) + " (a restore leaves " + (paths.size() == 1 ? "it" : "them") +
                               " as " + (paths.size() == 1 ? "it is" : "they are") + "):"};
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < paths.size() && i < kShown; ++i) out.push_back("  " + paths[i]);
  if (paths.size() > kShown) out.push_back("  and " + std::to_string(paths.size() - kShown) + " more (paddock undo show)");
  return out;
}

}  // namespace paddock::cli
