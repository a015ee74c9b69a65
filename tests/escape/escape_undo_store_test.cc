// The undo store ($XDG_STATE_HOME/paddock/undo) is unreachable from inside a sandbox, even with
// `--allow ~` or `--allow ~/.local/state` (issue 14): it cannot be listed, read or written, and
// naming it is refused. Checked on the host afterwards. As root and unprivileged.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

RunOpts opts_for(const World& w) {
  RunOpts o = w.opts();
  o.unset.push_back("XDG_STATE_HOME");
  return o;
}

TEST(EscapeUndoStore, UnreachableUnderAllowHome) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/f", "1");
  // A real session, so the store has content worth stealing or spoiling.
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "echo 2 > f"}, opts_for(w));
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string state = w.home + "/.local/state/paddock";
  const std::string store = state + "/undo";
  const std::string version = read_file(store + "/VERSION");
  ASSERT_FALSE(version.empty());
  for (const std::string grant : {"~", "~/.local", "~/.local/state"}) {
    SCOPED_TRACE(grant);
    const std::string script =
        "ls -a " + store + " 2>/dev/null; cat " + store + "/VERSION 2>/dev/null; ls " + store + "/sessions 2>/dev/null;"
        "echo planted > " + store + "/VERSION 2>/dev/null; mkdir -p " + store + "/sessions/x 2>/dev/null;"
        "rm -rf " + store + "/objects 2>/dev/null; touch " + state + "/mine 2>/dev/null; "
        "mv " + state + " " + w.home + "/.local/state/moved 2>/dev/null; true";
    Proc p = w.paddock({"run", "--allow", grant, "--", "sh", "-c", script}, opts_for(w));
    EXPECT_EQ(p.code, 0) << describe(p);
    EXPECT_FALSE(contains(p.out, "paddock-undo-store")) << describe(p);
    EXPECT_FALSE(contains(p.out, "objects")) << describe(p);
    EXPECT_EQ(read_file(store + "/VERSION"), version);
    EXPECT_TRUE(exists(store + "/objects"));
    EXPECT_FALSE(exists(store + "/sessions/x"));
    EXPECT_FALSE(exists(state + "/mine"));
    EXPECT_FALSE(exists(w.home + "/.local/state/moved"));
  }
  // The store still works.
  Proc rs = w.paddock({"undo", "restore", "--yes"}, opts_for(w));
  EXPECT_EQ(rs.code, 0) << describe(rs);
  EXPECT_EQ(read_file(w.project + "/f"), "1");
}

TEST(EscapeUndoStore, NamingItIsRefusedAndWhySaysSo) {
  KTEST_REQUIRE_BINARIES();
  World w;
  make_dirs(w.home + "/.local/state/paddock/undo");
  for (const char* flag : {"--read", "--allow", "--write"}) {
    Proc p = w.paddock({"run", flag, "~/.local/state/paddock/undo", "--", "true"}, opts_for(w));
    EXPECT_EQ(p.code, 2) << describe(p);
    EXPECT_TRUE(contains(p.err, "paddock's own state")) << describe(p);
  }
  Proc why = w.paddock({"why", "--allow", "~", "--path", "~/.local/state/paddock/undo/VERSION"}, opts_for(w));
  EXPECT_TRUE(contains(why.out + why.err, "paddock's own state")) << describe(why);
}

}  // namespace
}  // namespace ktest
