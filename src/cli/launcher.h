// Whether a command would start on the host: the question "is the agent installed" asks before
// paddock makes the agent's state in HOME (issue 30 item 9a).
#pragma once

#include <string>

namespace paddock::cli {

// CMD as typed: with a '/', that file (relative to CWD) is an executable regular file; otherwise
// one is found under that name in a directory of PATH_ENV (an empty entry is CWD, as execvp does).
bool launcher_resolves(const std::string& cmd, const std::string& cwd, const std::string& path_env);

}  // namespace paddock::cli
