#include "sys/remove_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "sys/unique_fd.h"

namespace paddock::sys {
namespace {

struct Level {
  std::string name;                // in the level above
  dev_t dev = 0;
  ino_t ino = 0;
  std::vector<std::string> todo;   // entries not yet removed
};

// The entries of the directory FD, read in one go (the descriptor is not kept).
std::vector<std::string> entries_of(int fd) {
  std::vector<std::string> out;
  int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup_fd < 0 ? nullptr : fdopendir(dup_fd);
  if (d == nullptr) {
    if (dup_fd >= 0) close(dup_fd);
    return out;
  }
  rewinddir(d);
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
  closedir(d);
  return out;
}

// A directory NAME in FD, made usable (owner rwx) and opened without following a symlink; it
// must be the inode ST described.
UniqueFd enter(int fd, const std::string& name, const struct stat& st) {
  // Not the owner (root removing a user's tree needs no mode): the open below says whether it worked.
  if ((st.st_mode & 0700) != 0700 && fchmodat(fd, name.c_str(), (st.st_mode & 07777) | 0700, 0) != 0) errno = 0;
  UniqueFd sub(openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat now;
  if (!sub || fstat(sub.get(), &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) return UniqueFd();
  return sub;
}

}  // namespace

Result<void> remove_tree_at(int dirfd, const std::string& name) {
  struct stat st;
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Result<void>() : errno_error("cannot remove", errno, name);
  if (!S_ISDIR(st.st_mode)) {
    if (unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) return errno_error("cannot remove", errno, name);
    return {};
  }
  int first_errno = 0;
  std::string first_what;
  auto failed = [&](const std::string& what, std::size_t depth) {
    if (first_errno == 0) {
      first_errno = errno ? errno : EIO;
      first_what = what + (depth ? " (" + std::to_string(depth) + " levels below)" : "");
    }
  };
  UniqueFd cur = enter(dirfd, name, st);
  if (!cur) return errno_error("cannot open the directory to remove it", errno ? errno : EIO, name);
  std::vector<Level> stack;
  stack.push_back({name, st.st_dev, st.st_ino, entries_of(cur.get())});
  while (!stack.empty()) {
    Level& at = stack.back();
    bool descended = false;
    while (!at.todo.empty()) {
      const std::string n = std::move(at.todo.back());
      at.todo.pop_back();
      struct stat est;
      if (fstatat(cur.get(), n.c_str(), &est, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone already
      if (!S_ISDIR(est.st_mode)) {
        if (unlinkat(cur.get(), n.c_str(), 0) != 0 && errno != ENOENT) failed(n, stack.size());
        continue;
      }
      UniqueFd sub = enter(cur.get(), n, est);
      if (!sub) {
        failed(n, stack.size());
        continue;
      }
      std::vector<std::string> below = entries_of(sub.get());
      cur = std::move(sub);
      stack.push_back({n, est.st_dev, est.st_ino, std::move(below)});
      descended = true;
      break;
    }
    if (descended) continue;
    // This level is done: up through "..", which must be the directory it was entered from.
    const Level done = std::move(stack.back());
    stack.pop_back();
    if (stack.empty()) break;
    UniqueFd up(openat(cur.get(), "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat ust;
    if (!up || fstat(up.get(), &ust) != 0 || ust.st_dev != stack.back().dev || ust.st_ino != stack.back().ino)
      return make_error("changed while it was being removed: stopped", name);
    cur = std::move(up);
    if (unlinkat(cur.get(), done.name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) failed(done.name, stack.size());
  }
  cur.reset();
  if (unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT && first_errno == 0) failed(name, 0);
  if (first_errno != 0) return errno_error("could not remove everything: " + first_what, first_errno, name);
  return {};
}

Result<void> remove_tree(const std::string& path) {
  std::string dir = ".", name = path;
  if (auto slash = path.find_last_of('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : path.substr(0, slash);
    name = path.substr(slash + 1);
  }
  if (name.empty() || name == "." || name == "..") return make_error("not a path to remove", path);
  UniqueFd d(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!d) return errno_error("cannot open", errno, dir);
  return remove_tree_at(d.get(), name);
}

}  // namespace paddock::sys
