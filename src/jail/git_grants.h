// Git-aware grants for a linked worktree (`git worktree add`): its `.git` is a file naming a
// git directory elsewhere (<common>/worktrees/<id>), which a sandbox confined to the worktree
// cannot see, so no git command works there. These grants make git add/commit/checkout work
// while hooks and config stay read-only, as paddock run keeps them in a repository's own .git.
#pragma once

#include <optional>
#include <string>

#include "paddock/policy.h"
#include "paddock/result.h"

namespace paddock::jail {

struct LinkedWorktree {
  std::string top;         // the worktree's directory (holding the .git file)
  std::string git_dir;     // <common>/worktrees/<id>
  std::string common_dir;  // the repository's .git
};

// The linked worktree DIR lies in (DIR or its nearest ancestor with a .git), or nullopt when
// that .git is a directory or there is none. The .git file is not trusted alone (a run may
// have written it): its git directory must lie in a `worktrees` directory of a repository, name
// this worktree back in its `gitdir` file, and its `commondir` must lead to that repository.
Result<std::optional<LinkedWorktree>> find_linked_worktree(const std::string& dir);

// Adds the grants: the worktree's git directory and the repository's objects read+write, the
// refs and their logs read+write under `refs_subdir` ("refs/heads/paddock" for a jail, "refs" for
// paddock run), the rest of the repository read-only (config, hooks, info), and the git
// directory's `commondir` and `gitdir` read-only (they tie the worktree to its repository).
void add_worktree_grants(PolicyBuilder& b, const LinkedWorktree& w, const std::string& refs_subdir,
                         const Origin& origin);

}  // namespace paddock::jail
