// Toolchains' start-up hooks (toolchain.h): by name, and what a .pth or pyvenv.cfg says.
#include "gate/toolchain.h"

#include <gtest/gtest.h>

namespace paddock::gate {
namespace {

std::vector<std::string_view> parts(std::initializer_list<std::string_view> p) { return p; }

TEST(Toolchain, Names) {
  EXPECT_TRUE(toolchain_name(parts({".venv", "lib", "python3.11", "site-packages", "a.pth"})));
  EXPECT_FALSE(toolchain_name(parts({"notes", "a.pth"})));
  EXPECT_TRUE(toolchain_name(parts({"src", "sitecustomize.py"})));
  EXPECT_TRUE(toolchain_name(parts({"sitecustomize", "__init__.py"})));
  EXPECT_TRUE(toolchain_name(parts({"x", "usercustomize.cpython-311-x86_64-linux-gnu.so"})));
  EXPECT_FALSE(toolchain_name(parts({"x", "sitecustomizer.py"})));
  EXPECT_TRUE(toolchain_name(parts({".venv", "pyvenv.cfg"})));
  EXPECT_TRUE(toolchain_name(parts({".venv", "bin", "python3.11"})));
  EXPECT_TRUE(toolchain_name(parts({".venv", "bin", "activate.fish"})));
  EXPECT_TRUE(toolchain_name(parts({".venv", "bin", "Activate.ps1"})));
  EXPECT_FALSE(toolchain_name(parts({".venv", "bin", "pip"})));
  EXPECT_TRUE(toolchain_name(parts({".venv", "bin", "pypy3.10"})));
  EXPECT_TRUE(toolchain_name(parts({".venv", "bin", "python3.13t"})));
  EXPECT_FALSE(toolchain_name(parts({"tools", "bin", "python-format.sh"})));
  EXPECT_FALSE(toolchain_name(parts({"tools", "bin", "python3-config"})));
  EXPECT_TRUE(toolchain_name(parts({"env", "etc", "conda", "activate.d", "x.sh"})));
}

TEST(Toolchain, PthLines) {
  EXPECT_TRUE(pth_runs_code("import os; os.system('x')\n"));
  EXPECT_TRUE(pth_runs_code("/some/dir\nimport\tx\n"));
  EXPECT_TRUE(pth_runs_code("\xEF\xBB\xBFimport x\n"));
  EXPECT_FALSE(pth_runs_code("/some/dir\n# import x\n ../other\nimporter\n"));
  EXPECT_EQ(pth_import_names("import os; __import__('_distutils_hack').add_shim()\n/dir\n"),
            (std::set<std::string>{"__import__", "_distutils_hack", "add_shim", "import", "os"}));
}

TEST(Toolchain, PyvenvPaths) {
  EXPECT_EQ(pyvenv_interpreter_paths("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n"
                                     "executable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv /p/.venv\n"
                                     " Base-Prefix=/opt/py\n"),
            (std::vector<std::string>{"/usr/bin", "/usr/bin/python3.11", "/opt/py"}));
}

}  // namespace
}  // namespace paddock::gate
