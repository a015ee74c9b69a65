// Language toolchains' start-up hooks: files a toolchain runs when it starts, before (and
// whatever) the program it was asked to run. The gate holds back what runs without the user
// choosing to run the project's code; docs/isolation.md ("Toolchains") lists the toolchains looked
// at, what is guarded and what is accepted, with the reason.
//
// Python: a virtual environment's interpreter (`.venv/bin/python`, which editors start on their
// own when a folder is opened, and `bin/activate`, which they source in every new terminal) reads
// `pyvenv.cfg` (its `home` says where the standard library is loaded from), then processes every
// `*.pth` file in its site-packages — executing each line that begins with `import` and adding
// the others to sys.path —, then imports `sitecustomize` and `usercustomize` from that path. The
// modules an existing `.pth` imports (setuptools' `_distutils_hack`, editable installs' finders)
// run at every start too. Checked after a run (toolchain_watch.cc): a `.pth` with an import line,
// any `sitecustomize`/`usercustomize` module, the modules existing `.pth` files import, a
// `pyvenv.cfg` that sends the interpreter into a writable area, `bin/python*` that is not a link
// to an interpreter outside the writable areas, `bin/activate*`; a conda environment's
// `bin/python*` and `etc/conda/activate.d`.
//
// Version managers' files read on `cd` (rust-toolchain.toml's `path`, .tool-versions' `path:`
// versions) are on the protected list (src/policy/protected_paths.cc).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::gate {

// Why the path of components PARTS is a toolchain start-up hook by its path alone, or nullopt
// (judge_path: conservative, nothing is read).
std::optional<std::string> toolchain_name(const std::vector<std::string_view>& parts);

// `sitecustomize` or `usercustomize` as a module: the name itself (a package directory) or with
// any extension (.py, .pyc, a compiled .so).
bool customize_name(std::string_view name);
// A virtual environment's bin/ entries its users start without choosing to: python*, activate*.
bool venv_script_name(std::string_view name);

// Whether a .pth file's TEXT makes Python execute code at start: a line beginning with "import "
// or "import\t" (site.py; a UTF-8 byte order mark before it counts as nothing, as Python 3.13
// reads it).
bool pth_runs_code(std::string_view text);
// The identifiers on TEXT's import lines: the modules those lines may import (a superset).
std::set<std::string> pth_import_names(std::string_view text);
// The values of the keys of a pyvenv.cfg that name where the interpreter and its standard library
// come from (home, executable, base-executable, base-prefix, base-exec-prefix).
std::vector<std::string> pyvenv_interpreter_paths(std::string_view text);

}  // namespace paddock::gate
