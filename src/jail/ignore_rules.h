// Which of a jail's changes the source's ignore rules leave out of diff and sync (issue 30 item
// 2): a build in a jail writes what the source's .gitignore names (src/.deps/*.Plo, libtool
// wrappers with the jail's path baked in), and `git worktree` users expect those to stay out.
// Internal to src/jail.
//
// Whose rules count. The source's (host-trusted, a run never writes them): its .gitignore files
// as they are in the source's directory, its repository's info/exclude, and core.excludesFile
// as git in the source resolves it (the user's global ignore file, as `git status` there
// honours it). The jail's own .gitignore files count too, but only to leave MORE out: a path is
// left out when the source's rules or the jail's ignore it, never brought back by a jail's `!`
// line. That is never unsafe (what is left out is not published), but it could hide work: how
// many the jail's rules alone left out is said apart.
//
// Never reads anything through git that the jail wrote other than .gitignore text: the rules
// are copied (regular files only, no link followed) into a tree of paddock's, holding only
// directories and .gitignore files, and matched there by the sealed git's `check-ignore
// --no-index` (sealed_git.h) with literal pathspecs. A file tracked in the source's HEAD is
// never left out (git's rule: ignore rules do not apply to tracked files).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "jail/sealed_git.h"
#include "paddock/jail.h"

namespace paddock::jail {

struct IgnoreVerdict {
  std::set<std::string> by_source;  // ignored by the source's rules
  std::set<std::string> by_jail;    // ignored only by .gitignore files the jail wrote
};

// Of PATHS (relative, files or symlinks), those the ignore rules leave out. JAIL_ROOT: the
// directory holding the jail's .gitignore files (the workspace, or an overlay's upper
// directory); "" for none. TRACKED: paths never left out.
Result<IgnoreVerdict> ignored_paths(const Runtime& r, const SealedGit& git, const std::vector<std::string>& paths,
                                    const std::string& jail_root, const std::set<std::string>& tracked);

// The files of the source's HEAD commit ("" source HEAD: none), for TRACKED above.
Result<std::set<std::string>> source_head_files(const Runtime& r, const SealedGit& git);

// The exclude file's text of the source's rules beyond its .gitignore files: info/exclude of
// its repository and core.excludesFile as git in the source resolves it.
std::string source_excludes(const Runtime& r);

// CHANGES without those the rules leave out (counted into COUNT); held changes are left out the
// same way.
Result<std::vector<Change>> leave_out_ignored(const Runtime& r, const SealedGit& git, std::vector<Change> changes,
                                              const std::string& jail_root, IgnoredCount& count);

}  // namespace paddock::jail
