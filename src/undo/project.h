// Which sessions an undo command is about (issue 30 item 4): `paddock undo` run from a project
// lists, shows and restores that project's sessions, not the newest in the whole store.
//
// The project of a directory CWD is the top level of the git repository holding it (the nearest
// directory at or above CWD with a `.git`, a directory or a worktree's file), unless that is HOME
// or `/` (a dotfiles repository is not a project); outside a repository it is CWD itself. A
// session belongs to the project when one of its roots is the project or holds it (a run with
// `--allow ~` captured it too), or, in a repository, lies inside it (a run started in one of its
// subdirectories). Outside a repository a directory below CWD is not counted: from HOME, that
// would be every project.
#pragma once

#include <string>
#include <vector>

namespace paddock::undo {

struct Project {
  std::string dir;          // canonical
  bool repository = false;  // DIR is a git repository's top level
};

// CWD and HOME absolute and canonical (HOME may be empty).
Project project_of(const std::string& cwd, const std::string& home);

// Whether a session with ROOTS (canonical) captured part of P.
bool in_project(const std::vector<std::string>& roots, const Project& p);

}  // namespace paddock::undo
