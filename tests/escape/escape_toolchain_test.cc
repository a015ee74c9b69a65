// Escape suite, toolchains' start-up hooks (issue 25, class 9): the sandbox plants code that a
// language toolchain runs when the host next starts it in the project — a project venv's python,
// which editors start on their own when the folder is opened, and rustup's toolchain file, which
// any `rustc --version` (an editor's, a shell prompt's) follows. Each attack is first run on the
// host without paddock, where the host-side command must run the planted code (so the test can
// fail), then inside paddock, with namespaces and in the fallback; afterwards the host's command
// runs nothing, and paddock's stderr names what it moved aside.
#include <unistd.h>

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "helpers/test_util.h"

namespace ktest {
namespace {

class EscapeToolchain : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (paddock_bin().empty() || probe_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set";
  }
  bool fallback() const { return GetParam(); }
  static std::string marker(const World& w) { return w.root / "hook-ran"; }

  // SETUP(world) prepares the project on the host; ATTACK is shell code run in the project with
  // $MARK (the marker's path) set; HOST (a shell line run in the project on the host) must run the
  // planted code after the attack without paddock, and nothing after it inside paddock. Returns
  // paddock's run; the world is kept in world_.
  Proc check(const std::function<void(const World&)>& setup, const std::string& attack, const std::string& host,
             const std::string& why_not_here = "") {
    const std::string script = "set +e; " + attack + "; true";
    {
      World control;
      setup(control);
      RunOpts o = control.opts();
      o.env["MARK"] = marker(control);
      auto direct = run({"/bin/sh", "-c", script}, o);
      if (!host_runs_it(control, host)) {
        if (!why_not_here.empty()) {
          skipped_ = why_not_here;
          return {};
        }
        ADD_FAILURE() << "the attack does not work even without paddock, so this test proves nothing\n" << describe(direct);
      }
    }
    world_ = std::make_unique<World>();
    setup(*world_);
    // What the host wrote in the clock tick the run starts in counts as the run's (quarantine.h:
    // an extra line, never a miss); the user's files are older than that.
    usleep(20'000);
    RunOpts o = world_->opts();
    if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    auto p = world_->paddock({"run", "--", "/bin/sh", "-c", "MARK=" + marker(*world_) + "; " + script}, o);
    EXPECT_FALSE(host_runs_it(*world_, host)) << "the host ran what the sandbox planted\n" << describe(p);
    return p;
  }
  static bool host_runs_it(const World& w, const std::string& host) {
    unlink(marker(w).c_str());
    run({"/bin/sh", "-c", host + " >/dev/null 2>&1; true"}, w.opts());
    return exists(marker(w));
  }
  std::unique_ptr<World> world_;
  std::string skipped_;
};

// A project virtual environment as `python3 -m venv --without-pip` makes it: pyvenv.cfg, a link
// to the host's interpreter, an empty site-packages (made by hand: python3-venv is not needed).
constexpr const char* kMakeVenv =
    "V=$(/usr/bin/python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])') && "
    "mkdir -p .venv/bin .venv/lib/python$V/site-packages && ln -s /usr/bin/python3 .venv/bin/python && "
    "printf 'home = /usr/bin\\ninclude-system-site-packages = false\\nversion = %s\\n' $V > .venv/pyvenv.cfg";
// The environment's site-packages, in the attack's shell.
constexpr const char* kSite = "SITE=$(echo .venv/lib/python3.*/site-packages); ";
// What editors run on opening the folder.
constexpr const char* kHostPython = ".venv/bin/python -c pass";

class EscapePython : public EscapeToolchain {
 protected:
  void SetUp() override {
    EscapeToolchain::SetUp();
    if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  }
  static void venv(const World& w, const std::string& extra = "") {
    auto r = run({"/bin/sh", "-c", std::string(kMakeVenv) + (extra.empty() ? "" : " && " + std::string(kSite) + extra)}, w.opts());
    ASSERT_EQ(r.code, 0) << describe(r);
  }
};

// A .pth file with an import line, added to the environment's site-packages.
TEST_P(EscapePython, PthFileWithAnImportLine) {
  auto p = check([](const World& w) { venv(w); },
                 std::string(kSite) + "printf 'import os; open(\"%s\", \"w\")\\n' \"$MARK\" > $SITE/evil.pth", kHostPython);
  EXPECT_TRUE(contains(p.err, "/site-packages/evil.pth")) << describe(p);
}

// A module an existing .pth imports at every start (as setuptools' distutils-precedence.pth
// imports _distutils_hack), rewritten.
TEST_P(EscapePython, ModuleAnExistingPthImports) {
  auto p = check([](const World& w) { venv(w, "echo 'import helpermod' > $SITE/helper.pth && echo pass > $SITE/helpermod.py"); },
                 std::string(kSite) + "printf 'open(\"%s\", \"w\")\\n' \"$MARK\" > $SITE/helpermod.py", kHostPython);
  EXPECT_TRUE(contains(p.err, "/site-packages/helpermod.py")) << describe(p);
}

// The interpreter replaced by a script.
TEST_P(EscapePython, InterpreterReplaced) {
  auto p = check([](const World& w) { venv(w); },
                 "rm .venv/bin/python && printf '#!/bin/sh\\ntouch %s\\nexec /usr/bin/python3 \"$@\"\\n' \"$MARK\" > "
                 ".venv/bin/python && chmod +x .venv/bin/python",
                 kHostPython);
  EXPECT_TRUE(contains(p.err, "/.venv/bin/python")) << describe(p);
}

// pyvenv.cfg's home sent into the project, where a standard library of the run's waits (the host's
// own, linked, with a sitecustomize of its own).
TEST_P(EscapePython, PyvenvHomeInTheProject) {
  auto p = check([](const World& w) { venv(w); },
                 "V=$(/usr/bin/python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])'); "
                 "mkdir -p fake/bin fake/lib/python$V && for f in /usr/lib/python$V/*; do "
                 "[ \"${f##*/}\" = sitecustomize.py ] || ln -s \"$f\" fake/lib/python$V/; done; "
                 "printf 'open(\"%s\", \"w\")\\n' \"$MARK\" > fake/lib/python$V/sitecustomize.py; "
                 "printf 'home = %s/fake/bin\\nversion = %s\\n' \"$PWD\" $V > .venv/pyvenv.cfg",
                 kHostPython);
  EXPECT_TRUE(contains(p.err, "/.venv/pyvenv.cfg")) << describe(p);
}

// sitecustomize.py in site-packages: imported at start where the interpreter has none of its own
// earlier on its path. Debian's python3 has one in /usr/lib/python3.X, which wins: there the
// attack does not work, and the test says so (ToolchainWatchTest covers the rule itself).
TEST_P(EscapePython, SitecustomizeInSitePackages) {
  auto p = check([](const World& w) { venv(w); },
                 std::string(kSite) + "printf 'open(\"%s\", \"w\")\\n' \"$MARK\" > $SITE/sitecustomize.py", kHostPython,
                 "this host's python3 imports its own sitecustomize (Debian's /usr/lib/python3.X/sitecustomize.py) "
                 "before a virtual environment's, so the attack cannot work here");
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  EXPECT_TRUE(contains(p.err, "/site-packages/sitecustomize.py")) << describe(p);
}

// Ordinary work in the environment stays: a package installed (files in site-packages), an
// editable install's path-only .pth.
TEST_P(EscapePython, OrdinaryInstallsStay) {
  World w;
  venv(w);
  usleep(20'000);  // as in check()
  RunOpts o = w.opts();
  if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  auto p = w.paddock({"run", "--", "/bin/sh", "-c",
                      std::string(kSite) + "mkdir -p $SITE/pkg && echo 'X = 1' > $SITE/pkg/__init__.py && "
                                           "echo \"$PWD/src\" > $SITE/__editable__.p.pth && mkdir -p src/mine && "
                                           "echo 'Y = 2' > src/mine/__init__.py"},
                     o);
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(contains(p.err, "left behind")) << describe(p);
  auto r = run({w.project + "/.venv/bin/python", "-c", "import pkg, mine; print(pkg.X + mine.Y)"}, w.opts());
  EXPECT_EQ(r.out, "3\n") << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Escape, EscapePython, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Namespaces"; });

// rust-toolchain.toml naming a toolchain by path: rustup runs that directory's rustc for any
// `rustc --version` in the project (a protected name: read-only during a run, moved aside after).
TEST_P(EscapeToolchain, RustToolchainPath) {
  if (run({"/bin/sh", "-c", "command -v rustup"}).code != 0) GTEST_SKIP() << "rustup is not on this user's PATH";
  const std::string plant =
      "mkdir -p tc/bin && printf '#!/bin/sh\\ntouch %s\\necho fake\\n' \"$MARK\" > tc/bin/rustc && chmod +x tc/bin/rustc && "
      "printf '[toolchain]\\npath = \"%s/tc\"\\n' \"$PWD\" > rust-toolchain.toml";
  auto p = check([](const World&) {}, plant, "rustc --version");
  EXPECT_TRUE(contains(p.err, "/rust-toolchain.toml")) << describe(p);
  // And in a subdirectory (read-only at the top during the run; any depth after it).
  auto q = check([](const World&) {}, "mkdir -p crate && cd crate && " + plant, "cd crate && rustc --version");
  EXPECT_TRUE(contains(q.err, "/crate/rust-toolchain.toml")) << describe(q);
}

INSTANTIATE_TEST_SUITE_P(Escape, EscapeToolchain, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Namespaces"; });

}  // namespace
}  // namespace ktest
