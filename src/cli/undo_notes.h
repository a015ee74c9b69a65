// What a session's snapshots left out or refused, as lines for people: the run's last lines
// (undo_run.cc), `paddock undo list` and `show` (cmd_undo.cc) say the same. Names in them are
// raw: the printer (sys::display) escapes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paddock/undo.h"

namespace paddock::cli {

// REFUSED checkpoints refused at the run's undo BUDGET (issue 25, class 11).
std::vector<std::string> undo_budget_lines(int refused, std::uint64_t budget);
// What a snapshot could not read and so does not hold (a directory deeper than the descriptors
// allow, one without permission): a restore leaves it as it is (UndoStore::unreadable).
std::vector<std::string> undo_unreadable_lines(const UndoUnreadable& u);

}  // namespace paddock::cli
