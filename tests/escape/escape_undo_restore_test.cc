// Escape suite, undo restore (issue 25, class 1): a restore is a write the sandbox chose. Inside
// `paddock run --undo` the sandbox writes what the host runs, asks for a checkpoint, and removes it
// again, so the run ends with nothing left behind; then the documented `paddock undo restore
// SESSION:1` runs on the host, and then the host-side tool (the shell entering the directory, git).
// The tool must run nothing, and the restore must say what it held back. With namespaces and in
// the fallback, as root and unprivileged. Each attack's payload is first shown to work on the host
// without paddock (so the test can fail).
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

class EscapeUndoRestore : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (paddock_bin().empty() || probe_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set";
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
    if (fallback() && landlock_abi() < 1) GTEST_SKIP() << "the fallback refuses to run without Landlock";
    world_ = std::make_unique<World>();
    // paddock itself where the sandbox can run it, left out of the snapshots.
    make_dirs(w().project + "/.pdk");
    write_file(w().project + "/.pdk/paddock", read_file(paddock_bin()), 0755);
  }
  bool fallback() const { return GetParam(); }
  World& w() { return *world_; }
  std::string mark() { return w().root / "host-ran"; }

  RunOpts opts() {
    RunOpts o = w().opts();
    o.unset = {"XDG_STATE_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"};
    o.env["GIT_CONFIG_NOSYSTEM"] = "1";
    if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    return o;
  }
  void git_init() {
    auto r = run({"/bin/sh", "-c", "git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init"},
                 opts());
    ASSERT_EQ(r.code, 0) << describe(r);
  }
  // The host's tool, run in the project: true when what the sandbox planted ran.
  bool host_runs_it(const std::string& shell_line) {
    unlink(mark().c_str());
    run({"/bin/sh", "-c", shell_line + " >/dev/null 2>&1; true"}, opts());
    return exists(mark());
  }

  // SCRIPT inside `run --undo` ($MARK is the marker's path; it asks for checkpoint 1 itself). The
  // run must end with nothing left behind (unless LEAVES: the fallback's .git/config, changed
  // and put back, is still named); then `undo restore --yes SESSION:1`.
  Proc attack_then_restore(const std::string& script, bool leaves = false) {
    Proc r = w().paddock({"run", "--undo", "--undo-exclude", ".pdk", "--", "/bin/sh", "-c",
                          "MARK=" + mark() + "; " + script},
                         opts());
    EXPECT_EQ(r.code, 0) << describe(r);
    if (!leaves)
      EXPECT_FALSE(contains(r.err, "left behind")) << "the after-run check already catches this\n" << describe(r);
    const std::string marker = "undo: session ";
    const auto at = r.err.find(marker);
    EXPECT_NE(at, std::string::npos) << describe(r);
    if (at == std::string::npos) return r;
    const std::string id = r.err.substr(at + marker.size(), 20);
    Proc show = w().paddock({"undo", "show", id + ":1"}, opts());
    EXPECT_EQ(show.code, 0) << describe(show);
    show_ = show;
    Proc rs = w().paddock({"undo", "restore", "--yes", id + ":1"}, opts());
    EXPECT_EQ(rs.code, 0) << describe(rs);
    return rs;
  }
  std::unique_ptr<World> world_;
  Proc show_;
};

// A `.envrc`: direnv runs it in the user's shell on the next cd into its directory. The project's
// own cannot be created during a run with namespaces (a protected path); one in a subdirectory can.
TEST_P(EscapeUndoRestore, EnvrcFromACheckpoint) {
  const std::string direnv = "for d in . app; do (cd $d && [ -f .envrc ] && . ./.envrc); done";
  write_file(w().project + "/app/.envrc", "touch " + mark() + "\n");
  ASSERT_TRUE(host_runs_it(direnv)) << "the payload does not run even without paddock";
  remove_tree(w().project + "/app");
  Proc rs = attack_then_restore(
      "mkdir app && echo x > app/work && for d in . app; do printf 'touch %s\\n' \"$MARK\" > $d/.envrc; done; "
      ".pdk/paddock checkpoint planted && rm -rf .envrc app; true");
  EXPECT_FALSE(exists(w().project + "/.envrc")) << describe(rs);
  EXPECT_FALSE(exists(w().project + "/app/.envrc")) << describe(rs);
  EXPECT_FALSE(host_runs_it(direnv)) << describe(rs);
  EXPECT_EQ(read_file(w().project + "/app/work"), "x\n") << "the rest of the checkpoint was not restored\n" << describe(rs);
  EXPECT_TRUE(contains(rs.out, "held back " + w().project + "/app/.envrc")) << describe(rs);
  EXPECT_TRUE(contains(rs.err, " held back")) << describe(rs);
  EXPECT_TRUE(contains(show_.out, "held back " + w().project + "/app/.envrc")) << describe(show_);
}

// Issue 30 item 5: `undo restore S:N` brings the whole scope back to an earlier session's
// checkpoint, a later session in between. It passes the same gate: the checkpoint's planted
// .envrc is held back, the rest comes back, the later session's Makefile goes.
TEST_P(EscapeUndoRestore, EnvrcFromAnEarlierSessionsCheckpointWithTheWholeScope) {
  const std::string direnv = "for d in . app; do (cd $d && [ -f .envrc ] && . ./.envrc); done";
  write_file(w().project + "/app/.envrc", "touch " + mark() + "\n");
  ASSERT_TRUE(host_runs_it(direnv)) << "the payload does not run even without paddock";
  remove_tree(w().project + "/app");
  Proc first = w().paddock({"run", "--undo", "--undo-exclude", ".pdk", "--", "/bin/sh", "-c",
                            "mkdir app && echo x > app/work && printf 'touch %s\\n' " + mark() +
                                " > app/.envrc && .pdk/paddock checkpoint planted && rm -rf app"},
                           opts());
  ASSERT_EQ(first.code, 0) << describe(first);
  const std::string marker = "undo: session ";
  const auto at = first.err.find(marker);
  ASSERT_NE(at, std::string::npos) << describe(first);
  const std::string id = first.err.substr(at + marker.size(), 20);
  Proc second = w().paddock({"run", "--undo", "--undo-exclude", ".pdk", "--", "/bin/sh", "-c", "echo all: > Makefile"},
                            opts());
  ASSERT_EQ(second.code, 0) << describe(second);
  Proc rs = w().paddock({"undo", "restore", "--yes", id + ":1"}, opts());
  ASSERT_EQ(rs.code, 0) << describe(rs);
  EXPECT_TRUE(contains(rs.err, "brings the whole scope back to snapshot " + id + ":1")) << describe(rs);
  EXPECT_FALSE(exists(w().project + "/app/.envrc")) << describe(rs);
  EXPECT_FALSE(host_runs_it(direnv)) << describe(rs);
  EXPECT_EQ(read_file(w().project + "/app/work"), "x\n") << describe(rs);
  EXPECT_FALSE(exists(w().project + "/Makefile")) << describe(rs);
  EXPECT_TRUE(contains(rs.out, "held back " + w().project + "/app/.envrc")) << describe(rs);
}

// A nested repository whose config names core.fsmonitor: the host's next `git status` in it.
TEST_P(EscapeUndoRestore, NestedRepositoryFromACheckpoint) {
  const std::string git_status = "cd sub && git status";
  {
    auto r = run({"/bin/sh", "-c", "mkdir sub && cd sub && git init -q && git config core.fsmonitor \"touch " + mark() +
                                       "; true\""},
                 opts());
    ASSERT_EQ(r.code, 0) << describe(r);
    ASSERT_TRUE(host_runs_it(git_status)) << "the payload does not run even without paddock";
    remove_tree(w().project + "/sub");
  }
  Proc rs = attack_then_restore(
      "mkdir sub && echo kept > sub/notes && cd sub && git init -q && git config core.fsmonitor \"touch $MARK; true\" && "
      "cd .. && .pdk/paddock checkpoint planted && rm -rf sub");
  EXPECT_FALSE(exists(w().project + "/sub/.git")) << describe(rs);
  EXPECT_EQ(read_file(w().project + "/sub/notes"), "kept\n") << describe(rs);
  EXPECT_FALSE(host_runs_it(git_status)) << describe(rs);
  EXPECT_TRUE(contains(rs.out, "held back " + w().project + "/sub/.git/")) << describe(rs);
}

// The project's own .git/config (writable during the run in the fallback; read-only with
// namespaces, where the attack already fails inside).
TEST_P(EscapeUndoRestore, ProjectGitConfigFromACheckpoint) {
  git_init();
  const std::string fsmonitor = "printf '[core]\\n\\tfsmonitor = \"touch %s; true\"\\n' \"$MARK\" >> .git/config";
  {
    RunOpts o = opts();
    o.env["MARK"] = mark();
    auto r = run({"/bin/sh", "-c", "cp .git/config .git/config.host && " + fsmonitor}, o);
    ASSERT_EQ(r.code, 0) << describe(r);
    ASSERT_TRUE(host_runs_it("git status")) << "the payload does not run even without paddock";
    ASSERT_EQ(::rename((w().project + "/.git/config.host").c_str(), (w().project + "/.git/config").c_str()), 0);
  }
  Proc rs = attack_then_restore("cp .git/config .pdk/c; " + fsmonitor + "; .pdk/paddock checkpoint planted; "
                                "cp .pdk/c .git/config; true",
                                fallback());
  EXPECT_FALSE(host_runs_it("git status")) << describe(rs);
  EXPECT_FALSE(contains(read_file(w().project + "/.git/config"), "fsmonitor")) << describe(rs);
}

// What no single name gives away: the host's project holds a HEAD (a fixture, say); the sandbox
// adds objects/, refs/ and a config beside it. Restored, the directory is a repository whose
// config git runs: the check after the restore's writes moves the config aside.
TEST_P(EscapeUndoRestore, ARepositoryAssembledAroundATrustedHead) {
  write_file(w().project + "/vendor/HEAD", "ref: refs/heads/main\n");
  const std::string pieces =
      "mkdir -p vendor/objects vendor/refs/heads && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n"
      "\\tworktree = %s\\n\\tfsmonitor = \"touch %s; true\"\\n' \"$PWD/vendor\" \"$MARK\" > vendor/config";
  const std::string git_status = "cd vendor && git status";
  {
    RunOpts o = opts();
    o.env["MARK"] = mark();
    auto r = run({"/bin/sh", "-c", pieces}, o);
    ASSERT_EQ(r.code, 0) << describe(r);
    ASSERT_TRUE(host_runs_it(git_status)) << "the payload does not run even without paddock";
    for (const char* p : {"objects", "refs", "config"}) remove_tree(w().project + "/vendor/" + p);
  }
  Proc rs = attack_then_restore(pieces + " && .pdk/paddock checkpoint planted && rm -rf vendor/objects vendor/refs "
                                         "vendor/config");
  EXPECT_FALSE(host_runs_it(git_status)) << describe(rs);
  EXPECT_TRUE(contains(rs.err, w().project + "/vendor/config")) << describe(rs);
  EXPECT_TRUE(contains(rs.err, "left behind")) << describe(rs);
}

INSTANTIATE_TEST_SUITE_P(Modes, EscapeUndoRestore, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "Fallback" : "Namespaces"; });

}  // namespace
}  // namespace ktest
