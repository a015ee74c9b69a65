// A run's private object directory (issue 25, class 3). Git does not re-hash a loose object
// when it reads one: a run that can write a repository's objects directory can rewrite the file
// of an object the host's HEAD names, and the host's next `git checkout`, `reset --hard` or
// `show` writes or shows the run's content under the old name (an .envrc in a tree the user
// committed, say) — nothing after the run sees a changed work tree. It can also plant
// objects/info/alternates or a pack index that maps a name to other content.
//
// So a run never writes the repository's objects: a directory of its own (the store, on the
// host where no sandbox sees it) is mounted at the objects directory's path, with the real one
// read-only inside it (`.paddock-source`, its alternate): git inside reads everything and
// writes only the store. After the run, what the store holds is imported through a verifying
// step: its loose objects and packs are copied (never following a link) to paddock's scratch,
// packed, and indexed with `git index-pack --strict` against the repository, which computes
// every object's name from its content and refuses a pack whose objects point at ones that do
// not exist; the verified pack is then installed. What the run wrote under a false name is
// imported under its true one, or not at all. The store's own info/ (alternates, commit-graph)
// is never read by paddock.
//
// Refs are the other half (ref_watch.h): a ref the run moved is published only when it names an
// object the repository now has, with everything that object reaches.
//
// Needs mounts, so namespaces: in the Landlock fallback the mounts are left out
// (SandboxMount::needs_namespaces) and the objects directory is writable as the rest of the
// project is (docs/isolation.md says so).
#pragma once

#include <string>
#include <vector>

#include "jail/sealed_git.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock::jail {

// The name of the read-only view of the repository's objects inside the store (its mount
// point, and the store's alternate).
inline constexpr const char* kSourceObjects = ".paddock-source";

struct Imported {
  std::size_t objects = 0;  // objects the repository did not have before
  std::string failure;      // non-empty: nothing was imported, and why (git's words)
};

// The verifying import (above) of the loose objects and packs in the object directory FROM
// into REPO_OBJECTS, with GIT (a sealed git) and a scratch directory under WORK; what the
// repository then has by FROM's names is removed from FROM.
Result<Imported> import_objects(const SealedGit& git, const std::string& from, const std::string& repo_objects,
                                const std::string& work);

class PrivateObjects {
 public:
  // REPO_OBJECTS: the repository's objects directory (absolute). STORE: the private directory
  // (created 0700 when missing; its parent must exist). WORK: a directory of paddock's for its
  // sealed git and scratch (created 0700 when missing). OBJECT_FORMAT: the repository's.
  static Result<PrivateObjects> prepare(const std::string& repo_objects, const std::string& store,
                                        const std::string& work, const std::string& object_format);

  // The store read-write at the objects directory's path, the objects directory read-only at
  // STORE/.paddock-source. Left out where namespaces are unavailable.
  std::vector<SandboxMount> mounts() const;

  // Imports what the store holds into the repository (import_objects), then removes from the
  // store what the repository now has. Safe while another run writes the store.
  Result<Imported> import() const;

  const std::string& repo_objects() const { return repo_objects_; }
  const std::string& store() const { return store_; }
  const std::string& work() const { return work_; }
  const SealedGit& git() const { return git_; }

 private:
  PrivateObjects(std::string repo_objects, std::string store, std::string work, SealedGit git)
      : repo_objects_(std::move(repo_objects)), store_(std::move(store)), work_(std::move(work)), git_(std::move(git)) {}
  std::string repo_objects_, store_, work_;
  SealedGit git_;
};

}  // namespace paddock::jail
