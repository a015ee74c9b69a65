#include "cli/undo_notes.h"

#include "policy/units.h"

namespace paddock::cli {

std::vector<std::string> undo_budget_lines(int refused, std::uint64_t budget) {
  if (refused == 0) return {};
  return {std::to_string(refused) + " checkpoint" + (refused == 1 ? " was" : "s were") +
          " refused: together with the ones before, " + (refused == 1 ? "it" : "they") +
          " would have stored more than the run's undo budget of " + format_size(budget) +
          " ([undo] max_bytes, --undo-max-bytes)"};
}

std::vector<std::string> undo_unreadable_lines(const UndoUnreadable& u) {
  const std::string n = std::to_string(u.n);
  if (!u.error.empty()) return {"snapshot :" + n + " cannot be read: " + u.error};
  const std::vector<std::string>& paths = u.paths;
  if (paths.empty()) return {};
  std::vector<std::string> out{std::to_string(paths.size()) + " path" + (paths.size() == 1 ? "" : "s") +
                               " could not be read and " + (paths.size() == 1 ? "is" : "are") + " not in snapshot :" +
                               n + " (a restore leaves " + (paths.size() == 1 ? "it" : "them") + " as " +
                               (paths.size() == 1 ? "it is" : "they are") + "):"};
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < paths.size() && i < kShown; ++i) out.push_back("  " + paths[i]);
  if (paths.size() > kShown) out.push_back("  and " + std::to_string(paths.size() - kShown) + " more (paddock undo show)");
  return out;
}

}  // namespace paddock::cli
