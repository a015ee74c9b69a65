// Masks follow objects, not paths (issue 25, class 8). A sensitive path is hidden in a run by a
// mount over it (src/engine/plan_builder.cc), and the directories between it and its writable
// area are held in place by mounts of their own; without namespaces Landlock gives those
// directories the right to be listed only (the fallback's split), so nothing can rename them
// either. A run that moved one anyway (`mv ~/.config/containers ~/.config/c2` under `--allow
// ~/.config`) would let the next run read the secret at the new name, which no mask covers: after
// the run, every hidden object, and each directory above it up to its writable area, must be
// where it was (device and inode). One that is not is said, looked for in the area and moved back.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::gate {

class MaskWatch {
 public:
  // The existing hidden paths of POLICY that lie in a writable area, with the directories above
  // each, as they are now.
  static MaskWatch before(const Policy& policy);
  // What was moved, each moved back when found (and what stands in its place now moved aside).
  std::vector<LeftBehind> after() const;

  // Entries visited when looking for a moved object in its area.
  static constexpr std::size_t kSearchBudget = 200'000;

 private:
  struct Step {
    std::string path;
    dev_t dev = 0;
    ino_t ino = 0;
  };
  struct Held {
    std::string area;          // the writable rule's path
    std::string reason;        // why it is hidden
    std::vector<Step> chain;   // from the first directory below AREA down to the hidden path
  };
  std::vector<Held> held_;
};

}  // namespace paddock::gate
