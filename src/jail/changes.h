// What a jail changed against its source, per workspace mode: shared by diff (changes.cc) and
// sync (sync.cc). Internal to src/jail.
//
// copy: the manifest written at copy time holds each entry's stat in the source and in the
// workspace; an entry whose workspace stat is unchanged (ctime included, which nothing in user
// space can set back) was not touched, so a diff reads only what changed.
// overlay: the upper directory holds exactly what the jail changed.
// worktree: the workspace is hashed into paddock's own index and objects (a sealed git,
// sealed_git.h; the index keeps every unchanged file's stat, so unchanged files are not read
// again) and compared with the commit the jail started from.
//
// Whatever lies inside a `.git` directory is never part of the changes. Every change is judged
// by the gate (gate::judge_path): what the host runs or trusts is marked held, and no sync
// publishes it.
#pragma once

#include <sys/types.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "jail/sealed_git.h"
#include "jail/tree.h"
#include "paddock/jail.h"
#include "sys/unique_fd.h"

namespace paddock::jail {

std::string trim_line(std::string s);

// Marks C held when the gate says the host runs or trusts an entry of MODE (0: unknown) at its
// path.
void judge(Change& c, mode_t mode);

// ---- copy and overlay -------------------------------------------------------------------------
struct CopyState {
  sys::UniqueFd src, ws, runtime;  // ws: the workspace (copy) or the upper directory (overlay)
  std::vector<ManifestEntry> manifest;                 // copy
  std::unordered_map<std::string, std::size_t> index;  // path -> manifest position
};
Result<CopyState> open_copy(const Runtime& r);
Result<CopyState> open_overlay(const Runtime& r);
std::string overlay_upper(const Runtime& r);
EntryStat lstat_at(int dirfd, const std::string& rel);
// Sorted by path, judged.
Result<std::vector<Change>> copy_changes(CopyState& c, const Runtime& r);
Result<std::vector<Change>> overlay_changes(CopyState& c, const Runtime& r);
// The patch of one change (`git diff --no-index` in the sealed git), with FROM_ROOT's side
// (the workspace, or the upper directory) named b/PATH.
Result<std::string> patch_one(const Runtime& r, const SealedGit& git, const Change& ch, const std::string& from_root);

// ---- worktree ---------------------------------------------------------------------------------
struct TreeEntry {
  std::string mode = "000000", sha;  // mode 000000: absent
  bool absent() const { return mode == "000000"; }
};
struct RawChange {
  Change change;
  TreeEntry base, now;  // in the starting commit, in the workspace
};
struct WorktreeDiff {
  std::string tree;  // the workspace as a tree (in the sealed git's objects)
  std::vector<RawChange> raw;
  std::vector<RawChange> left_out;  // added files the ignore rules leave out (in TREE all the same)
  IgnoredCount ignored;
};
// The workspace hashed with `git add -A`: files ignored by the workspace's .gitignore files, the
// source repository's info/exclude or the user's core.excludesFile are not hashed at all
// (node_modules stays unread), those ignored by the source's .gitignore files alone are left out
// after (ignore_rules.h). With Ignored::Include, `git add -A -f` into an index of its own.
Result<WorktreeDiff> worktree_changes(const Runtime& r, const SealedGit& git, Ignored ignored = Ignored::LeaveOut);
// The workspace's tree with every held or left-out change put back as the starting commit has it.
Result<std::string> publishable_tree(const Runtime& r, const SealedGit& git, const WorktreeDiff& d);

// The commit a worktree jail's worktree is at: its HEAD file (the run's to write) read as data.
Result<std::string> jail_head(const Runtime& r);

// The sealed git of a jail (runtime/git/git): the source repository's objects as its
// alternate, when the source is a repository.
Result<SealedGit> jail_git(const Runtime& r);
// The source repository's git (common) directory; "" when the source is not in one.
std::string source_common_dir(const Runtime& r);

}  // namespace paddock::jail
