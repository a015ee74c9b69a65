// `jail rm` as one library call (paddock/jail.h): refused while a command runs in the jail, and,
// unless forced, while its workspace holds work that is not in its source.
#include "paddock/jail.h"
#include "sys/display.h"

namespace paddock::jail {
namespace {

// As `git worktree remove` refuses a worktree with changes, saying what would be lost.
Result<void> check_nothing_lost(const Store& st, std::string_view jail) {
  const std::string name(jail);
  auto r = st.load(name);
  if (!r) return {};  // damaged: rm is what is offered for it
  auto lost = unsynced(*r);
  const std::string hint = "paddock jail sync " + name + " --apply (or --to-branch NAME, --patch FILE) first, or "
                           "paddock jail rm " + name + " --force";
  if (!lost) return make_error("cannot tell what removing jail " + name + " would lose: " + lost.error().describe(),
                               r->workspace_root, hint);
  if (lost->empty()) return {};
  constexpr std::size_t kShown = 20;
  std::string list;
  for (std::size_t i = 0; i < lost->size() && i < kShown; ++i)
    list += std::string("\n  ") + (*lost)[i].kind + " " + sys::display((*lost)[i].path);
  if (lost->size() > kShown) list += "\n  ... and " + std::to_string(lost->size() - kShown) + " more";
  return make_error("jail " + name + " has " + std::to_string(lost->size()) + " change(s) that are not in its source" +
                        (r->workspace_mode == WorkspaceMode::Worktree ? " nor committed on its branch " + r->git_branch
                                                                      : std::string()) +
                        "; removing it would lose them:" + list,
                    r->workspace_root, hint);
}

}  // namespace

Result<void> remove_jail(const Store& st, std::string_view name, bool force) {
  if (auto n = check_name(name); !n) return n;
  // A jail whose metadata is damaged has no lock to take: it is removed all the same (that is
  // what rm is offered for).
  auto lock = st.lock(name, true);
  if (!lock && lock.error().message.find("in use") != std::string::npos) return std::move(lock).take_error();
  if (!force)
    if (auto k = check_nothing_lost(st, name); !k) return k;
  return st.remove(name);
}

}  // namespace paddock::jail
