#include "sys/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

Result<bool> make_file_under(const std::string& root, const std::string& path, std::string_view content,
                             mode_t mode) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos || slash + 1 >= path.size()) return make_error("not a file path", path);
  const std::string parent = path.substr(0, slash);
  const std::string name = path.substr(slash + 1);
  if (parent != root) {
    if (auto made = make_dir_under(root, parent, 0700); !made) return std::move(made).take_error();
  } else if (root.empty() || root == "/") {
    return make_error("not a path under " + root, path);
  }
  // The parent again, component by component with no symlink followed (make_dir_under checked
  // them; they are opened once more here, each O_NOFOLLOW).
  UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return errno_error("cannot open", errno, root);
  for (std::string rest = parent == root ? std::string() : parent.substr(root.size() + 1); !rest.empty();) {
    auto cut = rest.find('/');
    std::string part = rest.substr(0, cut);
    rest = cut == std::string::npos ? std::string() : rest.substr(cut + 1);
    UniqueFd next(::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) return errno_error("cannot open", errno, parent);
    dir = std::move(next);
  }
  UniqueFd fd(::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd) {
    if (errno == EEXIST) {
      struct stat st;
      if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
        return make_error("exists and is not a regular file (or is a symlink)", path);
      return false;  // there already: never replaced
    }
    return errno_error("cannot create", errno, path);
  }
  for (std::size_t off = 0; off < content.size();) {
    ssize_t n = ::write(fd.get(), content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::unlinkat(dir.get(), name.c_str(), 0);  // nothing half-written stays
      return errno_error("cannot write", e, path);
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return errno_error("cannot write", errno, path);
  return true;
}

}  // namespace paddock::sys
