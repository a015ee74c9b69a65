#include "gate/mask_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "gate/quarantine.h"
#include "policy/path_util.h"
#include "sys/unique_fd.h"
#include "sys/syscalls.h"

namespace paddock::gate {
namespace {

// The deepest writable rule that strictly contains PATH (the area a sandbox could rename in).
const PathRule* writable_area(const Policy& policy, const std::string& path) {
  const PathRule* best = nullptr;
  for (const PathRule& r : policy.paths)
    if (r.symlink_target.empty() && path != r.path && path::is_at_or_under(path, r.path) &&
        (best == nullptr || r.path.size() > best->path.size()))
      best = &r;
  return best != nullptr && grants(best->access, Access::Write) ? best : nullptr;
}

// Where the inode DEV:INO now is below the directory FD (at PATH): no symlink followed, no other
// file system entered, at most BUDGET entries and 64 levels.
std::optional<std::string> find_inode(int fd, const std::string& path, dev_t dev, ino_t ino, std::size_t& budget,
                                      int depth = 0) {
  int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup_fd < 0 ? nullptr : fdopendir(dup_fd);
  if (d == nullptr) {
    if (dup_fd >= 0) close(dup_fd);
    return std::nullopt;
  }
  rewinddir(d);
  std::vector<std::string> dirs;
  std::optional<std::string> found;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (budget == 0) break;
    --budget;
    struct stat st;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (st.st_dev == dev && st.st_ino == ino) {
      found = path + "/" + e->d_name;
      break;
    }
    if (S_ISDIR(st.st_mode) && st.st_dev == dev) dirs.emplace_back(e->d_name);
  }
  closedir(d);
  if (found || depth >= 64) return found;
  for (const std::string& n : dirs) {
    sys::UniqueFd sub(openat(fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub) continue;
    if (auto f = find_inode(sub.get(), path + "/" + n, dev, ino, budget, depth + 1)) return f;
  }
  return std::nullopt;
}

bool at_its_place(const std::string& path, dev_t dev, ino_t ino) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

}  // namespace

MaskWatch MaskWatch::before(const Policy& policy) {
  MaskWatch w;
  for (const DeniedPath& d : policy.denied) {
    const PathRule* area = writable_area(policy, d.path);
    if (area == nullptr) continue;
    Held h{area->path, d.reason, {}};
    bool ok = true;
    for (std::string p = d.path; p != area->path; p = path::parent(p)) {
      struct stat st;
      if (lstat(p.c_str(), &st) != 0) {
        ok = false;  // nothing there to hide (or to hold)
        break;
      }
      h.chain.insert(h.chain.begin(), Step{p, st.st_dev, st.st_ino});
    }
    if (ok && !h.chain.empty()) w.held_.push_back(std::move(h));
  }
  return w;
}

std::vector<LeftBehind> MaskWatch::after() const {
  std::vector<LeftBehind> out;
  for (const Held& h : held_) {
    const Step* moved = nullptr;
    for (const Step& s : h.chain)
      if (!at_its_place(s.path, s.dev, s.ino)) {
        moved = &s;
        break;
      }
    if (moved == nullptr) continue;
    const std::string hidden = h.chain.back().path;
    const std::string what = "hidden from every sandbox (" + h.reason + "), and " +
                             (moved->path == hidden ? "it" : moved->path) +
                             " was moved during the run: a later run would show it at its new name, where no mask is";
    std::size_t budget = kSearchBudget;
    sys::UniqueFd area(open(h.area.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    std::optional<std::string> now = area ? find_inode(area.get(), h.area, moved->dev, moved->ino, budget) : std::nullopt;
    if (!now) {
      out.push_back({hidden, what, "not found in " + h.area + ": find it and move it back to " + moved->path +
                                       " before the next run"});
      continue;
    }
    // Whatever stands at its place now (the run may have rebuilt it) goes aside first.
    sys::UniqueFd parent(open(path::parent(moved->path).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    const std::string name = moved->path.substr(moved->path.rfind('/') + 1);
    std::string action;
    struct stat st;
    if (parent && fstatat(parent.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      action = "what stood at " + moved->path + " " + move_aside(parent.get(), name, moved->path, "the next run") + "; ";
    const std::string now_parent = path::parent(*now), now_name = now->substr(now->rfind('/') + 1);
    sys::UniqueFd from(open(now_parent.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (parent && from &&
        sys::renameat2(from.get(), now_name.c_str(), parent.get(), name.c_str(), RENAME_NOREPLACE) == 0) {
      action += "moved back from " + *now;
    } else {
      action += "could not move it back from " + *now + " (" + std::strerror(errno) + "): move it back to " +
                moved->path + " before the next run";
    }
    out.push_back({hidden, what, action});
  }
  return out;
}

}  // namespace paddock::gate
