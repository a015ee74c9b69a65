// `paddock run --undo` on the command line: the recorder (paddock/undo.h: UndoRecorder) with a
// progress line while a long first snapshot is taken, and its report as the run's last lines.
// A snapshot that fails never stops the run: the footer says undo is incomplete and why.
#pragma once

#include <string>
#include <vector>

#include "paddock/policy.h"
#include "paddock/sandbox.h"
#include "paddock/undo.h"

namespace paddock::cli {

// --undo, --undo-exclude, --undo-max-bytes and a profile's [undo] table.
using UndoRunFlags = UndoRecordOptions;

// UndoRecorder::begin, with "[paddock] undo: first snapshot: ..." on stderr past a second.
UndoRecorder begin_undo(const UndoRunFlags& f, const Policy& policy, const HostContext& ctx,
                        const std::vector<std::string>& command);
// UndoRecorder::open_checkpoints; a channel that does not open is said on stderr (not fatal).
void open_undo_checkpoints(UndoRecorder& u, Policy& policy, RunOptions& opts);
// The [paddock] lines a run ends with: the session and how to restore it, or what failed.
std::vector<std::string> undo_report_lines(const UndoRecordReport& r);

}  // namespace paddock::cli
