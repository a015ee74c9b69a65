// A per-execution working directory on the host, bound read-write into one sandbox and removed
// afterwards. Interim stand-in for a private tmpfs at /workspace (needs an engine feature).
#pragma once

#include <string>

#include "paddock/result.h"

namespace paddock::mcp {

class Workspace {
 public:
  Workspace() = default;
  // A fresh 0700 directory under `root` (which must exist and be private to this user).
  static Result<Workspace> create(const std::string& root);
  ~Workspace();
  Workspace(Workspace&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  Workspace& operator=(Workspace&& o) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const std::string& path() const { return path_; }
  bool valid() const { return !path_.empty(); }
  // Removes the tree now (also done by the destructor). Never follows symlinks; restores
  // permissions the code may have taken away so that everything can be deleted.
  void remove();

 private:
  std::string path_;
};

// Removes a directory tree without following symlinks, making directories writable first.
void remove_tree(const std::string& path);

}  // namespace paddock::mcp
