#include "sys/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "sys/unique_fd.h"

namespace paddock::sys {

Result<bool> make_dir_under(const std::string& root, const std::string& path, mode_t mode) {
  if (root.empty() || root == "/" || path.size() <= root.size() + 1 || path.compare(0, root.size(), root) != 0 ||
      path[root.size()] != '/') {
    return make_error("not a path under " + root, path);
  }
  UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return errno_error("cannot open", errno, root);
  bool created = false;
  std::string rest = path.substr(root.size() + 1);
  std::string done = root;
  while (!rest.empty()) {
    auto slash = rest.find('/');
    std::string part = rest.substr(0, slash);
    rest = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    if (part.empty() || part == "." || part == "..") return make_error("not a normal path", path);
    done += "/" + part;
    if (::mkdirat(dir.get(), part.c_str(), mode) == 0) {
      created = true;
    } else if (errno != EEXIST) {
      return errno_error("cannot create", errno, done);
    }
    UniqueFd next(::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      if (errno == ELOOP || errno == ENOTDIR) return make_error("exists and is not a directory (or is a symlink)", done);
      return errno_error("cannot open", errno, done);
    }
    dir = std::move(next);
  }
  return created;
}

}  // namespace paddock::sys
