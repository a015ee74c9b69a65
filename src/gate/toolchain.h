// Language toolchains' start-up hooks: files a toolchain runs when it starts, before (and
// whatever) the program it was asked to run. The gate holds back what runs without the user
// choosing to run the project's code; docs/isolation.md lists the toolchains looked at and what is
// accepted, with the reason.
//
// Python: a virtual environment's interpreter (`.venv/bin/python`, which editors start on their own
// when a folder is opened) processes every `*.pth` file in its site-packages at start, executing
// the lines that begin with `import`, then imports `sitecustomize` and `usercustomize` from its
// path; `pyvenv.cfg` names the interpreter (`home`, `executable`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::gate {

// Why the path of components PARTS is a toolchain start-up hook by its name, or nullopt.
std::optional<std::string> toolchain_name(const std::vector<std::string_view>& parts);

}  // namespace paddock::gate
