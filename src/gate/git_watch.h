// Git repositories the host will use after the run (issue 12, class 1; issue 25, class 2). Git
// runs what a repository's control files name — hooks, core.fsmonitor, core.sshCommand,
// filters, a pager — and it finds those files by rules the sandbox can play with: a `.git`
// directory or `gitdir:` file in any directory, a bare repository's HEAD/objects/refs in the
// directory itself, a `commondir` that puts objects, refs and config somewhere else, linked
// worktrees and submodule git directories. git_rules.h has those rules as git's setup.c has
// them; the after-run walk (walker.h) applies them to every directory of the writable areas, and
// the part of it that judges what it finds is in git_watch.cc:
//
//   - a `.git` file or symlink the run created or changed is moved aside; one that was there is
//     followed, and the git directory it names judged when it lies in a writable area;
//   - every directory with a valid HEAD whose common directory has objects/ and refs/ is a git
//     directory: in it, the `commondir`, `config.worktree` and `gitdir` the run created or
//     changed are moved aside, and so is its HEAD — unless the repository was there before the
//     run: its commondir untouched and its common directory's config older than the run. Then
//     HEAD is the user's branch pointer (`git checkout -b` rewrites it through a rename) and
//     stays. Git runs nothing a HEAD names; a HEAD only decides whether a directory is a
//     repository, and one whose config is the user's runs the user's config;
//   - in its common directory (wherever its commondir leads, when that lies in a writable area):
//     config, hooks, info/attributes, objects/info/alternates, and recursively the git
//     directories of its submodules (modules/) and linked worktrees (worktrees/);
//   - a rebase or cherry-pick in progress whose instruction sheet the run wrote with `exec` lines;
//   - files named commondir, gitdir or config.worktree anywhere else the run created or changed.
//
// The project's own `.git/config` (its areas' `.git`, writable in the fallback) is read before
// the run; if the run changed it, it is put back and the run's kept as `config.paddock-rejected`.
//
// During the run the mounts hold the project's `.git` in place and keep its config and hooks
// read-only (plan_builder.cc); what mounts cannot stop is found here after the run, by inode
// change time (quarantine.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paddock::gate {

// Why a file named NAME can make git find a repository or send it to another one, wherever it
// lies (HEAD, commondir, gitdir, config.worktree), or nullopt.
std::optional<std::string> git_name(std::string_view name);

}  // namespace paddock::gate
