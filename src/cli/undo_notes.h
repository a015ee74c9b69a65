// What a session's snapshots left out or refused, as lines for people: the run's last lines
// (undo_run.cc), `paddock undo list` and `show` (cmd_undo.cc) say the same. Names in them are
// raw: the printer (sys::display) escapes them.
#pragma once

#include <string>
#include <vector>

#include "undo/store.h"

namespace paddock::cli {

// Checkpoints refused at the run's undo budget (issue 25, class 11).
std::vector<std::string> undo_budget_lines(const undo::SessionInfo& s);
// What snapshot N (default: the last) could not read and so does not hold (a directory deeper
// than the descriptors allow, one without permission): a restore leaves it as it is.
std::vector<std::string> undo_unreadable_lines(const undo::Store& store, const undo::SessionInfo& s, int n = -1);

}  // namespace paddock::cli
