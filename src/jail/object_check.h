// The repository's own objects directory checked after a run (issue 25, class 3) where the run
// could write it: in the Landlock fallback there are no mounts, so no private object directory
// (private_objects.h), and a run can rewrite a loose object or a pack index in place. Every loose
// object and pack created or changed since the run started (its inode change time, which nothing
// in user space can set back) is verified: a loose object's content must hash to its name, a
// pack's index must be the one `git index-pack` computes from the pack. What does not verify is
// moved aside (NAME.paddock-quarantine), and so are the caches git keeps beside packs
// (multi-pack-index, bitmaps, reverse indexes), which it rebuilds. With namespaces nothing there
// changes during a run: the check finds nothing, at the cost of listing the directory.
#pragma once

#include <string>
#include <vector>

#include "gate/quarantine.h"
#include "jail/sealed_git.h"

namespace paddock::jail {

class ObjectCheck {
 public:
  // From now on, changes count.
  static ObjectCheck start(const std::string& repo_objects);
  // Lines for the user: what did not verify, and where it went. GIT: a sealed git; WORK: a
  // directory of paddock's for scratch.
  std::vector<std::string> after(const SealedGit& git, const std::string& work) const;

 private:
  std::string objects_;
  gate::Baseline since_;
};

}  // namespace paddock::jail
