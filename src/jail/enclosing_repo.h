// Started from a repository's subdirectory, the project is that subdirectory and git inside says
// "not a git repository" (the repository above is not visible). Found here the way git finds it —
// by asking the host's git (setup.c: GIT_DIR, `.git` files with gitdir:, GIT_CEILING_DIRECTORIES,
// filesystem boundaries), not by a shape guessed from the tree — to say so before the run and
// offer the top level (issue 30 item 6).
#pragma once

#include <optional>
#include <string>

namespace paddock::jail {

// The top level of the repository git finds from CWD, when it lies strictly above CWD; nullopt
// when CWD is a repository's top level, in none, or git is missing. CWD holding a `.git` of its
// own (and no GIT_DIR or GIT_WORK_TREE in the environment) is a top level, and no `.git` or HEAD
// from CWD up to the root means no repository: no git is run in either case.
std::optional<std::string> enclosing_repository_top(const std::string& cwd);

// The line said before the run, for the top level TOP of the repository above the project CWD.
std::string enclosing_repository_line(const std::string& cwd, const std::string& top);

}  // namespace paddock::jail
