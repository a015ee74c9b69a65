// What `paddock --version`, `-V` and `paddock version` print: the release, the commit it was built
// from ("-dirty" when tracked files differed from it) and the build type, e.g.
// "paddock 0.1.0 (commit 1a2b3c4d5e6f, RelWithDebInfo)".
#pragma once

#include <string>

namespace paddock::cli {

std::string version_text();

}  // namespace paddock::cli
