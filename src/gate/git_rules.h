// Git's own rules for what a directory is to it, read from git's setup.c (v2.39 to 2.47 agree),
// so that the gate finds every repository git would find and nothing it would not:
//
//   is_git_directory(D)   D/HEAD is a valid HEAD (validate_headref: a symlink whose target starts
//                         with "refs/", or a file starting "ref:" + spaces + "refs/", or with a
//                         hexadecimal object name), and the common directory C has objects/ and
//                         refs/. C is what D/commondir names (relative to D; trailing CR/LF cut),
//                         else D itself. git reads its config, hooks, info/attributes,
//                         objects/info/alternates, modules/ and worktrees/ from C; HEAD, index and
//                         config.worktree (under extensions.worktreeConfig) from D.
//   discovery             from the current directory upwards, in each directory: `.git` as a
//                         `gitdir: PATH` file (relative to the file's directory; at most 1 MiB), as
//                         a directory (or a symlink to one) that is a git directory, then the
//                         directory itself as a bare repository (safe.bareRepository defaults to
//                         "all").
//
// Conservative where the gate uses them: objects/ and refs/ count when the entry exists at all
// (git asks access(X_OK), which a dangling symlink fails), and GIT_OBJECT_DIRECTORY and
// GIT_COMMON_DIR in the user's environment are not assumed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paddock::gate::git {

// validate_headref on the entry NAME in the directory DIR (no symlink followed for the entry
// itself, as git's lstat).
bool valid_head(int dir, const char* name = "HEAD");
// The text a HEAD holds, judged as validate_headref judges a regular file's first 255 bytes.
bool valid_head_text(std::string_view text);

// What DIR/commondir names, as git reads it: nullopt when there is no such entry; "" when it
// cannot be read (git dies there: nothing is found through it). Relative to DIR as written.
std::optional<std::string> commondir_text(int dir);
// What a `.git` file's text names (the part after "gitdir: ", trailing CR/LF cut), or nullopt
// when git would not take it for a gitfile.
std::optional<std::string> gitfile_target(std::string_view text);

// Whether a rebase's instruction sheet (rebase-merge/git-rebase-todo) holds a command git runs
// through the shell: an `exec` or `x` line, as sequencer.c parses them.
bool todo_runs_commands(std::string_view text);

// The shape of a directory to git: a valid HEAD, and objects/ and refs/ in its common directory
// (COMMON: an open descriptor of it, or -1 for DIR itself).
bool is_git_directory(int dir, int common = -1);

}  // namespace paddock::gate::git
