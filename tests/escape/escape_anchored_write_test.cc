// Escape suite, issue 12 class 6: what a run leaves in the project must not redirect paddock's
// own writes (the report, the network log).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

// Class 6: `--report DIR/run.json` with DIR in the project. The sandbox swaps DIR for a symlink to
// a place it cannot write (but paddock can) during the run; the report must land in the directory
// paddock opened before the run, and nothing outside. A DIR that already is a symlink is refused.
TEST(EscapeAnchoredWrite, ReportDirectorySwappedForASymlinkDuringTheRun) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir victim("paddock-kt-victim");
  make_dirs(w.project + "/out");
  auto p = w.paddock({"run", "--report", "out/run.json", "--", "/bin/sh", "-c",
                      "mv out out.old && ln -s " + victim.path() + " out && echo swapped"});
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "swapped")) << describe(p);
  EXPECT_FALSE(exists(victim / "run.json")) << describe(p);
  auto left = run({"/bin/sh", "-c", "ls -A " + victim.path()});
  EXPECT_EQ(left.out, "") << "written outside the project: " << left.out;
  EXPECT_TRUE(contains(read_file(w.project + "/out.old/run.json"), "\"paddock.report/1\"")) << describe(p);
  // Before the run, a directory that is a symlink is refused with a clear message (exit 2).
  auto before = w.paddock({"run", "--report", "out/run.json", "--", "/bin/true"});
  EXPECT_EQ(before.code, 2) << describe(before);
  EXPECT_TRUE(contains(before.err, "goes through a symlink")) << describe(before);
  EXPECT_FALSE(exists(victim / "run.json")) << describe(before);
  // --net-log's directory likewise (checked before the network filter is even started).
  auto log = w.paddock({"run", "--allow-domain", "example.test", "--net-log", "out/net.jsonl", "--", "/bin/true"});
  EXPECT_EQ(log.code, 2) << describe(log);
  EXPECT_TRUE(contains(log.err, "goes through a symlink")) << describe(log);
  EXPECT_FALSE(exists(victim / "net.jsonl")) << describe(log);
}

}  // namespace
}  // namespace ktest
