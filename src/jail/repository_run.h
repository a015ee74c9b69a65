// One run in a git repository, guarded (issue 25, class 3): the repository's objects behind a
// private object directory (private_objects.h) and the refs the run may move watched
// (ref_watch.h). Used by a worktree jail's exec (src/cli/cmd_jail.cc) and by `paddock run` in a
// repository or a linked worktree (src/cli/cmd_run.cc): before() ahead of the run, its mounts
// added to the run's, after() once every sandboxed process is gone.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jail/object_check.h"
#include "jail/private_objects.h"
#include "jail/ref_watch.h"
#include "paddock/jail.h"
#include "paddock/result.h"

namespace paddock::jail {

struct RepositoryRunSpec {
  std::string common_dir;             // the repository's git (common) directory
  std::vector<std::string> ref_dirs;  // directories under it the run may write ("refs")
  std::vector<std::string> heads;     // HEAD files the run may write (absolute)
  std::string store;                  // the private object directory (host)
  std::string work;                   // paddock's own directory (its sealed git, scratch)
};

class RepositoryRun {
 public:
  static Result<RepositoryRun> before(const RepositoryRunSpec& spec);
  std::vector<SandboxMount> mounts() const { return objects_.mounts(); }
  // Checks what changed in the repository's own objects directory (object_check.h) unless the
  // run had the private object directory for sure (OBJECTS_WERE_PRIVATE: it ran with
  // namespaces), imports the run's private objects and checks the refs it moved: lines for the
  // user (nothing when all is well).
  std::vector<std::string> after(bool objects_were_private = false) const;

 private:
  RepositoryRun(PrivateObjects o, ObjectCheck c, RefWatch r)
      : objects_(std::move(o)), check_(std::move(c)), refs_(std::move(r)) {}
  PrivateObjects objects_;
  ObjectCheck check_;  // where the mounts are left out (the fallback): the objects checked in place
  RefWatch refs_;
};

// A worktree jail's runs: its private store in the jail root, paddock's sealed git in its
// runtime directory, the refs under refs/heads/paddock/ and the worktree's HEAD watched.
RepositoryRunSpec jail_repository(const Runtime& r);
// The sealed git a worktree jail's diff and sync use (the same directory as its runs').
std::string jail_git_work(const Runtime& r);

// `paddock run` in DIR (the project): the repository it works in when that repository's objects
// directory is one the run could write (WRITABLE says), else nullopt. A linked worktree's (its
// common directory) or the one whose `.git` directory is DIR's or an ancestor's. Its private
// store lies in GIT_OBJECTS_DIR (StateLayout::git_objects_dir: paddock's state, which no sandbox
// sees), one per repository.
Result<std::optional<RepositoryRunSpec>> repository_of(const std::string& dir, const std::string& git_objects_dir,
                                                       const std::function<bool(const std::string&)>& writable);

}  // namespace paddock::jail
