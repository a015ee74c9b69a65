// Removing a tree a sandbox wrote (the fallback's private HOME and /tmp, an MCP call's host
// workspace): whatever the sandbox made of it. No symlink is ever followed; a directory the
// sandbox made unreadable or unwritable (chmod 000) is made usable first; and the walk holds at
// most two descriptors whatever the depth, so a tree deeper than the descriptor limit (or than
// PATH_MAX, or 4,096 levels) goes too. Each directory is entered through its parent's descriptor
// and left through "..", checked against the parent it came from (device and inode): a tree
// changed under the walk stops it, never sends it elsewhere.
#pragma once

#include <string>

#include "paddock/result.h"

namespace paddock::sys {

// Removes NAME in the directory DIRFD and everything below it. Absent: nothing to do. An error
// says what could not be removed (the first failure), after everything else was.
Result<void> remove_tree_at(int dirfd, const std::string& name);
// The same for an absolute or relative PATH (its last component is not followed either).
Result<void> remove_tree(const std::string& path);

}  // namespace paddock::sys
