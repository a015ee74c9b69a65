// The writable trees a door wrote into, checked after it by one walk (walker.h): git's rules,
// the protected names at any depth, toolchains' start-up hooks. Taken before the door writes
// (each area opened then, no symlink followed, and the project's own `.git` recorded), checked
// after: what changed since, by inode change time, is moved aside (or put back) and listed.
//
// The areas: a run's writable host-backed rules and mounts, and an overlay's upper directory —
// where the run's writes to an overlay workspace land — walked with its paths shown as the
// workspace shows them, and its read-only lower layer consulted where a rule asks whether
// something is there (a HEAD in the upper directory of a repository whose config is in the
// lower one).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "gate/quarantine.h"
#include "gate/walker.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::gate {

// Where the walk keeps what it listed between runs (dir_index.h), and from what size on.
struct IndexPlace {
  std::string dir;  // a directory no sandbox can write (paddock's state: gate.h); empty: no index
  // An area's first index is written only when its walk read at least this many entries (a
  // smaller tree is read faster than its index); an index once written is kept up to date.
  std::size_t min_entries = kIndexMinEntries;
  static constexpr std::size_t kIndexMinEntries = 4096;
};

// What an after() walked (for the report and the benchmark).
struct WalkCost {
  std::size_t listed = 0;      // directories read
  std::size_t from_index = 0;  // directories found unchanged in the index, not read
};

class TreeWatch {
 public:
  // The writable, host-backed areas of POLICY and MOUNTS (overlays' upper directories included),
  // opened now; changes from now on count. With INDEX, after() reads only the directories that
  // changed since an earlier walk listed them.
  static TreeWatch before(const Policy& policy, const std::vector<SandboxMount>& mounts = {},
                          IndexPlace index = {});
  // Everything the rules find that the door created or changed since before(). Visits at most
  // ENTRY_BUDGET directory entries; past that, says which area was not fully checked. Paths
  // TRUSTED says yes to are left alone; COVERED paths (the policy's protected paths) are left to
  // the caller. COST, when given, says what was walked.
  std::vector<LeftBehind> after(std::size_t entry_budget = kEntryBudget, const TrustedFn& trusted = {},
                                const std::set<std::string>& covered = {}, WalkCost* cost = nullptr) const;

  static constexpr std::size_t kEntryBudget = 4'000'000;

  // The watched areas, each opened before the run (overlays' upper directories first).
  const std::vector<WalkArea>& areas() const { return areas_; }

 private:
  std::vector<WalkArea> areas_;
  Baseline base_;
  IndexPlace index_;
};

}  // namespace paddock::gate
