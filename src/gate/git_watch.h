// Git repositories the host will use after the run (issue 12, class 1). Git runs what a
// repository's control files name — hooks, core.fsmonitor, core.sshCommand, filters, a pager —
// and it finds those files by rules the sandbox can play with: a `.git` directory or `gitdir:`
// file in any directory, a bare repository's HEAD/objects/refs in the directory itself,
// `commondir`, linked worktrees and submodule git directories. During the run the mounts hold the
// project's `.git` in place and keep its config and hooks read-only (plan_builder.cc); what mounts
// cannot stop — control files created or changed anywhere in a writable area — is found here
// after the run, by their inode change time: the kernel sets ctime on every write, rename, link
// and chmod, and nothing in user space can set it back, so an inode with ctime at or after the
// run's start was created or changed by the run.
#pragma once

#include <time.h>

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "gate/quarantine.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::gate {

// Why a file named NAME can make git find a repository or send it to another one, wherever it
// lies (HEAD, commondir, gitdir, config.worktree), or nullopt.
std::optional<std::string> git_name(std::string_view name);

class GitWatch {
 public:
  // The writable, host-backed areas of POLICY and MOUNTS, opened now (no symlink followed);
  // changes from now on count.
  static GitWatch before(const Policy& policy, const std::vector<SandboxMount>& mounts = {});
  // Every git control file created or changed in those areas since before(), and every
  // directory that became a repository. Visits at most `entry_budget` directory entries; past
  // that, says which area was not fully checked.
  // Paths TRUSTED says yes to are left alone.
  std::vector<LeftBehind> after(std::size_t entry_budget = kEntryBudget,
                                const std::function<bool(const std::string&)>& trusted = {}) const;

  static constexpr std::size_t kEntryBudget = 4'000'000;

  struct Area {
    std::string path;
    std::shared_ptr<const sys::UniqueFd> fd;
    bool had_git_dir = false;  // PATH/.git was a directory before the run: which one
    dev_t git_dev = 0;
    ino_t git_ino = 0;
  };
  // The watched areas (writable, host-backed, outermost only), each opened before the run.
  const std::vector<Area>& areas() const { return areas_; }

 private:
  std::vector<Area> areas_;
  Baseline base_;  // the areas' own .git control files as they were
};

}  // namespace paddock::gate
