// The last lines of `paddock run --undo`, from the recorder's report (cli/undo_run.h).
#include "cli/undo_run.h"

#include <gtest/gtest.h>

namespace paddock::cli {
namespace {

TEST(UndoReportLines, ACompleteRunNamesItsSessionAndHowToTakeItBack) {
  UndoRecordReport r;
  r.session = "20261128-104312-eb04";
  r.has_snapshot = true;
  r.changes = 1;
  r.stored = 8;
  EXPECT_EQ(undo_report_lines(r),
            std::vector<std::string>{"undo: session 20261128-104312-eb04, 1 change, 8 bytes stored after the first "
                                     "snapshot (paddock undo show 20261128-104312-eb04); paddock undo restore "
                                     "20261128-104312-eb04 takes them back"});
}

TEST(UndoReportLines, RefusedCheckpointsUnreadablePathsAndAFullStoreAreSaid) {
  UndoRecordReport r;
  r.session = "S";
  r.has_snapshot = true;
  r.changes = 2;
  r.stored = 4096;
  r.budget = 1024;
  r.budget_refused = 2;
  r.unreadable.n = 3;
  r.unreadable.paths = {"/p/locked (unreadable: Permission denied)"};
  r.store_quota = 2048;
  r.over_quota = 4096;
  const auto lines = undo_report_lines(r);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "undo: session S, 2 changes, 4K stored after the first snapshot (paddock undo show S); "
                      "paddock undo restore S takes them back");
  EXPECT_EQ(lines[1], "undo: 2 checkpoints were refused: together with the ones before, they would have stored more "
                      "than the run's undo budget of 1K ([undo] max_bytes, --undo-max-bytes)");
  EXPECT_EQ(lines[2], "undo: 1 path could not be read and is not in snapshot :3 (a restore leaves it as it is):");
  EXPECT_EQ(lines[3], "undo:   /p/locked (unreadable: Permission denied)");
  EXPECT_EQ(lines[4], "undo: the store holds 4K, over its quota of 2K: paddock undo prune --max-size 2K removes the "
                      "oldest sessions until it fits");
}

TEST(UndoReportLines, AnIncompleteRunSaysWhyAndHowToGetTheTreeBack) {
  UndoRecordReport r;
  r.incomplete = "no room";
  EXPECT_EQ(undo_report_lines(r), std::vector<std::string>{"undo: incomplete: no room"});
  r.session = "S";
  r.has_snapshot = true;
  const auto lines = undo_report_lines(r);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "undo: paddock undo restore S:0 brings back the tree as it was before the run (it snapshots the "
                      "tree as it is first; that needs room in the store)");
}

}  // namespace
}  // namespace paddock::cli
