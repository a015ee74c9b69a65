// What a run wrote where nothing of the host backs it (the fresh HOME's own tmpfs), listed after
// the run from a detached clone of that one mount (child.cc, send_scratch_home): what is bound into
// HOME (the project, an agent's state) is not part of the clone and is never walked.
//
// The tree is the sandbox's: nothing in it is followed or opened but directories, each with
// openat(O_DIRECTORY | O_NOFOLLOW) relative to its parent's descriptor; names are reported as they
// are (callers print them through sys::display). The walk is bounded in depth and entries.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "paddock/sandbox.h"

namespace paddock::engine {

struct DiscardWalkLimits {
  std::size_t max_paths = 5;            // DiscardedWrites::paths
  int max_depth = 64;                   // directories below the root
  std::uint64_t max_entries = 1000000;  // entries looked at, in all
};

// Lists the tree at ROOT_FD (the tmpfs mounted at ROOT inside the sandbox). SETUP holds the paths
// (as the sandbox sees them) that paddock itself made there — mount points and the directories
// above them: not counted, but walked, since the command may have written beside them.
DiscardedWrites list_discarded_writes(int root_fd, const std::string& root, const std::set<std::string>& setup,
                                      const DiscardWalkLimits& limits = {});

}  // namespace paddock::engine
