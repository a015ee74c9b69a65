// The refs a run may move (issue 25, class 3): a jail's own refs/heads/paddock/*, the refs of a
// repository `paddock run` works in, and the HEAD files. They are the run's to write (git needs
// it to commit), so after the run each one it created or moved is published only when it names
// an object the repository has, with everything that object reaches (after the private
// objects' verifying import, private_objects.h): otherwise the host's next git would follow it
// to an object the run never handed over, or to none. Refs under refs/replace/ are never
// published: git shows a replacement in place of the object a ref names, silently (checkout and
// reset write the replacement's files). What is not published is put back as it was (or
// removed when it is new) and said.
//
// Refs are read as the files they are (loose refs; packed-refs is read-only to runs), never
// following a link.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "jail/sealed_git.h"

namespace paddock::jail {

class RefWatch {
 public:
  // COMMON_DIR: the repository's git (common) directory. REF_DIRS: directories under it the run
  // may write ("refs/heads/paddock", "refs"). HEADS: HEAD files the run may write (absolute).
  static RefWatch before(const std::string& common_dir, const std::vector<std::string>& ref_dirs,
                         const std::vector<std::string>& heads);
  // What the run moved that cannot be published, put back; one line each for the user. GIT
  // reads the repository's objects at REPO_OBJECTS.
  std::vector<std::string> after(const SealedGit& git, const std::string& repo_objects) const;

 private:
  std::map<std::string, std::string> read() const;  // absolute path -> content

  std::string common_dir_;
  std::vector<std::string> ref_dirs_, heads_;
  std::map<std::string, std::string> before_;
};

}  // namespace paddock::jail
