// paddock's own git on data a sandbox wrote (issue 25, class 4). Git runs programs that its
// configuration names (filter drivers, diff drivers and textconv, fsmonitor, hooks, pagers,
// credential helpers, signing programs, aliases) and reads attributes that pick them per path
// (.gitattributes, info/attributes). A jail's worktree git directory, its config.worktree, the
// workspace's .gitattributes and any repository nested in it are the run's to write: a git
// that reads them would run, unsandboxed, what the run chose.
//
// A SealedGit is a git directory paddock makes and writes itself, in a place no sandbox sees: a
// config of its own (hooks, fsmonitor, signing, filters off; nothing else configured), the
// objects of the repositories it reads as alternates, and an info/attributes that unsets, at the
// highest precedence, every attribute that selects a driver or converts content. git runs with
// that directory as GIT_DIR, an environment of paddock's (no system or global config, no
// inherited GIT_* variable) and, where a work tree is read, only as data: what it holds is hashed
// as it is, never filtered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jail/process.h"
#include "paddock/result.h"

namespace paddock::jail {

// One git command's inputs beyond the arguments.
struct GitCall {
  std::string work_tree;         // GIT_WORK_TREE ("" for none)
  std::string index;             // GIT_INDEX_FILE ("" for the sealed directory's own)
  std::string objects;           // GIT_OBJECT_DIRECTORY ("" for the sealed directory's own)
  std::vector<std::string> env;  // more variables (an author, for commit-tree)
  const std::string* input = nullptr;  // stdin
};

class SealedGit {
 public:
  // Makes DIR (created 0700 when missing; its parent must exist and is never a symlink) a git
  // directory of paddock's: HEAD, config, info/attributes and objects/info/alternates are
  // (re)written every time, so nothing another writer left there counts. ALTERNATES: object
  // directories read through it (a source repository's). OBJECT_FORMAT: "sha1" or "sha256", the
  // repositories' own.
  static Result<SealedGit> open(const std::string& dir, const std::vector<std::string>& alternates,
                                std::string_view object_format = "sha1");

  // git ARGS in the sealed directory. Fails only when git cannot be started.
  Result<ProcessResult> run(const std::vector<std::string>& args, const GitCall& call = {}) const;
  // run() that fails (with git's stderr) on a non-zero exit; returns stdout.
  Result<std::string> ok(const std::vector<std::string>& args, const GitCall& call = {}) const;

  const std::string& dir() const { return dir_; }
  std::string objects() const { return dir_ + "/objects"; }

 private:
  explicit SealedGit(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// The object format ("sha1", "sha256") of the repository whose git directory (or common
// directory) is GIT_DIR: read from its own config, which no sandbox can write (it is protected
// during runs, and a jail's runs see their source's read-only).
Result<std::string> object_format_of(const std::string& git_dir);

// Of NAMES, those the object directory OBJECTS (and its alternates) does not have, in order.
Result<std::vector<std::string>> objects_missing(const SealedGit& git, const std::string& objects,
                                                 const std::vector<std::string>& names);

// The non-empty lines of S.
std::vector<std::string> lines_of(const std::string& s);

// Whether NAME is a full object name (40 or 64 lowercase hex digits).
bool is_object_name(std::string_view name);

}  // namespace paddock::jail
