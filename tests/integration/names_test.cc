// Issue 25, class 10: names a sandbox chose reach the user's terminal escaped, in every output
// that shows a path — `undo show`, `undo diff`, `undo restore`'s list (the one the user is asked
// to approve), `jail diff`, the run's left-behind lines, `why`. The names are made from inside a
// run: ESC [2K (erase the line: it could hide an entry of the confirmation), a carriage return, an
// 8-bit CSI (U+009B) and a right-to-left override (U+202E). As root and unprivileged.
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

// What a terminal would act on instead of showing.
const char* const kRaw[] = {"\x1b", "\r", "\xc2\x9b", "\xe2\x80\xae"};

// The shell that makes each hostile name (printf's escapes) in the current directory, as a
// file, and a nested repository whose name carries them too (the after-run check names it).
const std::string kMakeNames =
    "for n in 'esc\\033[2Kname' 'cr\\rname' 'csi\\302\\23331mname' 'bidi\\342\\200\\256txt.exe'; do "
    "f=$(printf \"$n\"); echo hostile > \"$f\"; done";

void expect_escaped(const std::string& what, const std::string& out) {
  SCOPED_TRACE(what);
  for (const char* raw : kRaw) EXPECT_FALSE(contains(out, raw)) << "a raw control reached the terminal:\n" << out;
  EXPECT_TRUE(contains(out, "esc\\x1b[2Kname")) << out;
  EXPECT_TRUE(contains(out, "cr\\x0dname")) << out;
  EXPECT_TRUE(contains(out, "csi\\xc2\\x9b31mname")) << out;
  EXPECT_TRUE(contains(out, "bidi\\xe2\\x80\\xaetxt.exe")) << out;
}

TEST(Names, UndoShowsEveryNameEscaped) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/keep", "1");
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", kMakeNames}, w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  Proc show = w.paddock({"undo", "show"}, w.state_opts());
  ASSERT_EQ(show.code, 0) << describe(show);
  expect_escaped("undo show", show.out);
  Proc diff = w.paddock({"undo", "diff"}, w.state_opts());
  ASSERT_EQ(diff.code, 0) << describe(diff);
  expect_escaped("undo diff", diff.out);
  Proc dry = w.paddock({"undo", "restore", "--dry-run"}, w.state_opts());
  ASSERT_EQ(dry.code, 0) << describe(dry);
  expect_escaped("undo restore --dry-run", dry.out + dry.err);
  Proc yes = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  ASSERT_EQ(yes.code, 0) << describe(yes);
  expect_escaped("undo restore --yes", yes.out + yes.err);
  EXPECT_FALSE(exists(w.project + "/cr\rname"));
}

TEST(Names, TheRunsLeftBehindLinesAreEscaped) {
  KTEST_REQUIRE_BINARIES();
  World w;
  // Nested repositories under hostile names: the check after the run moves their config aside
  // and names each.
  Proc r = w.paddock({"run", "--", "sh", "-c",
                      "for n in 'esc\\033[2Kname' 'cr\\rname' 'csi\\302\\23331mname' 'bidi\\342\\200\\256txt.exe'; do "
                      "d=$(printf \"$n\"); mkdir -p \"$d/.git/refs\" \"$d/.git/objects\"; "
                      "echo 'ref: refs/heads/main' > \"$d/.git/HEAD\"; printf '[core]\\n' > \"$d/.git/config\"; done"},
                     w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  ASSERT_TRUE(contains(r.err, "left behind")) << describe(r);
  expect_escaped("the run's left-behind lines", r.err);
}

TEST(Names, JailDiffShowsEveryNameEscaped) {
  KTEST_REQUIRE_BINARIES();
  if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
  World w;
  RunOpts o = w.state_opts();
  o.env["GIT_CONFIG_NOSYSTEM"] = "1";
  auto init = run({"/bin/sh", "-c",
                   "echo 1 > keep && git init -q . && git add keep && "
                   "git -c user.email=t@t -c user.name=t commit -q -m init"},
                  o);
  ASSERT_EQ(init.code, 0) << describe(init);
  const std::string name = "names-" + std::to_string(::getpid());
  Proc c = w.paddock({"jail", "create", name, "--workspace", "copy", "--source", w.project}, o);
  ASSERT_EQ(c.code, 0) << describe(c);
  Proc ex = w.paddock({"jail", "exec", name, "--", "sh", "-c", kMakeNames}, o);
  EXPECT_EQ(ex.code, 0) << describe(ex);
  Proc d = w.paddock({"jail", "diff", name, "--name-status"}, o);
  EXPECT_EQ(d.code, 0) << describe(d);
  expect_escaped("jail diff --name-status", d.out);
  // The patch on a terminal (util-linux script gives it one): its headers name the files.
  if (access("/usr/bin/script", X_OK) == 0) {
    Proc tty = run({"/usr/bin/script", "-qec", "stty -onlcr; \"$PADDOCK\" jail diff " + name, "/dev/null"},
                   [&] {
                     RunOpts t = o;
                     t.env["PADDOCK"] = paddock_bin();
                     return t;
                   }());
    EXPECT_EQ(tty.code, 0) << describe(tty);
    EXPECT_TRUE(contains(tty.out, "+++ b/")) << describe(tty);
    // (git quotes C0 controls itself, as \033: only that nothing arrives raw is checked.)
    for (const char* raw : kRaw) EXPECT_FALSE(contains(tty.out, raw)) << "raw on the terminal:\n" << tty.out;
    EXPECT_TRUE(contains(tty.out, "bidi\\xe2\\x80\\xaetxt.exe")) << tty.out;
  }
  w.paddock({"jail", "rm", "--force", name}, o);
  w.paddock({"jail", "rm", name}, o);
}

TEST(Names, WhyShowsThePathEscaped) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string out;
  for (const std::string n : {"esc\x1b[2Kname", "cr\rname", "csi\xc2\x9b" "31mname", "bidi\xe2\x80\xaetxt.exe"}) {
    Proc why = w.paddock({"why", "--path", w.home + "/.ssh/" + n, "--op", "read"}, w.state_opts());
    out += why.out + why.err;
  }
  expect_escaped("why", out);
}

}  // namespace
}  // namespace ktest
