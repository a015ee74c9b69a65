#include "gate/tree_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "policy/path_util.h"
#include "sys/anchored_dir.h"

namespace paddock::gate {
namespace {

// What is kept of the user's repository's own files, to put back (walker.h, WalkArea::git_saved).
constexpr std::size_t kSavedFileMax = 4u << 20;
constexpr std::size_t kSavedTotalMax = 8u << 20;
constexpr std::size_t kSavedCount = 512;

// The regular file NAME in DIR (no symlink followed), when at most MAX bytes.
std::optional<SavedFile> save(int dir, const char* name, std::size_t max) {
  sys::UniqueFd f(openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat st;
  if (!f || fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > max)
    return std::nullopt;
  SavedFile s;
  s.mode = st.st_mode & 07777;
  char buf[65536];
  for (;;) {
    ssize_t n = read(f.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    s.bytes.append(buf, static_cast<std::size_t>(n));
    if (s.bytes.size() > max) return std::nullopt;
  }
  return s;
}

struct Saver {
  std::map<std::string, SavedFile>& out;
  std::size_t total = 0;

  void file(int dir, const std::string& rel, const char* name) {
    if (out.size() >= kSavedCount || total >= kSavedTotalMax) return;
    auto s = save(dir, name, std::min(kSavedFileMax, kSavedTotalMax - total));
    if (!s) return;
    total += s->bytes.size();
    out.emplace(rel.empty() ? std::string(name) : rel + "/" + name, std::move(*s));
  }
  // Each directory below DIR (at REL): a git directory's files, or further down (submodule
  // names may hold '/').
  void git_dirs(int dir, const std::string& rel, int depth, std::initializer_list<const char*> names) {
    std::vector<std::string> subs;
    const int dup_fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
    DIR* d = dup_fd < 0 ? nullptr : fdopendir(dup_fd);
    if (d == nullptr) {
      if (dup_fd >= 0) close(dup_fd);
      return;
    }
    while (dirent* e = readdir(d))
      if (e->d_type == DT_DIR && std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        subs.emplace_back(e->d_name);
    closedir(d);
    for (const std::string& n : subs) {
      sys::UniqueFd sub(openat(dir, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub) continue;
      struct stat st;
      const bool git_dir = fstatat(sub.get(), "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 ||
                           fstatat(sub.get(), "config", &st, AT_SYMLINK_NOFOLLOW) == 0;
      if (git_dir) {
        for (const char* name : names) file(sub.get(), rel + "/" + n, name);
      } else if (depth < 8) {
        git_dirs(sub.get(), rel + "/" + n, depth + 1, names);
      }
    }
  }
};

// The files of the git directory GIT (the area's own .git) that tie the user's repository, its
// linked worktrees and its submodules together, as they are before the run.
std::map<std::string, SavedFile> save_git_files(int git) {
  std::map<std::string, SavedFile> out;
  Saver s{out};
  s.file(git, "", "config");
  s.file(git, "", "config.worktree");
  if (sys::UniqueFd wt{openat(git, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)})
    s.git_dirs(wt.get(), "worktrees", 8, {"commondir", "gitdir", "config.worktree"});
  if (sys::UniqueFd mod{openat(git, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)})
    s.git_dirs(mod.get(), "modules", 0, {"config", "config.worktree"});
  return out;
}

}  // namespace

TreeWatch TreeWatch::before(const Policy& policy, const std::vector<SandboxMount>& mounts, IndexPlace index) {
  TreeWatch w;
  w.base_.start();
  w.index_ = std::move(index);
  // An overlay's writes land in its upper directory; its host_path is the read-only lower layer,
  // which the sandbox cannot change. Walked first: an upper directory another area holds is then
  // judged with the workspace's paths.
  for (const SandboxMount& m : mounts) {
    if (m.overlay_upper.empty() || m.host_path.empty()) continue;
    auto upper = sys::open_dir_no_symlinks(m.overlay_upper);
    auto lower = sys::open_dir_no_symlinks(m.host_path);
    if (!upper || !lower) continue;
    WalkArea a;
    a.path = m.overlay_upper;
    a.shown = m.sandbox_path;
    a.fd = std::make_shared<const sys::UniqueFd>(std::move(*upper));
    a.lower = std::make_shared<const sys::UniqueFd>(std::move(*lower));
    w.areas_.push_back(std::move(a));
  }
  std::vector<std::string> roots;
  for (const PathRule& r : policy.paths)
    if (grants(r.access, Access::Write) && r.symlink_target.empty()) roots.push_back(r.path);
  for (const SandboxMount& m : mounts)
    if (!m.host_path.empty() && m.overlay_upper.empty() && grants(m.access, Access::Write)) roots.push_back(m.host_path);
  std::sort(roots.begin(), roots.end());
  const std::size_t overlays = w.areas_.size();
  for (const std::string& root : roots) {
    const bool nested = std::any_of(w.areas_.begin() + static_cast<std::ptrdiff_t>(overlays), w.areas_.end(),
                                    [&](const WalkArea& a) { return path::is_at_or_under(root, a.path); });
    if (nested) continue;
    auto fd = sys::open_dir_no_symlinks(root);
    if (!fd) continue;  // a file, or absent: nothing a repository can be made in
    WalkArea a;
    a.path = a.shown = root;
    a.fd = std::make_shared<const sys::UniqueFd>(std::move(*fd));
    struct stat st;
    if (fstatat(a.fd->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
      a.had_git_dir = true;
      a.git_dev = st.st_dev;
      a.git_ino = st.st_ino;
      // Its control files as they are now (the rest of the area is judged by the clock alone),
      // and its config, to put back if the run changes it.
      if (sys::UniqueFd git{openat(a.fd->get(), ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)})
        a.git_saved = save_git_files(git.get());
      Walker::record_git_dir(w.base_, a);
    }
    w.areas_.push_back(std::move(a));
  }
  return w;
}

std::vector<LeftBehind> TreeWatch::after(std::size_t entry_budget, const TrustedFn& trusted,
                                         const std::set<std::string>& covered, WalkCost* cost) const {
  std::vector<LeftBehind> out;
  std::vector<std::string> roots;
  for (const WalkArea& a : areas_) roots.push_back(a.path);
  Walker walker(base_, entry_budget, trusted, covered, roots, out);
  // The walk's start: a directory whose ctime is not older than this by the racy window is not
  // kept in the index (dir_index.h).
  struct timespec now;
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  for (const WalkArea& a : areas_) {
    std::optional<DirIndex> index;
    if (!index_.dir.empty()) index = DirIndex::load(index_.dir, a.path, Walker::rules_fingerprint(), now);
    const std::size_t budget_before = walker.budget_left();
    // With namespaces the mounts hold .git in place; without, it can be renamed and rebuilt.
    struct stat st;
    if (a.had_git_dir && (fstatat(a.fd->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != a.git_dev ||
                          st.st_ino != a.git_ino)) {
      out.push_back({path::join(a.shown, ".git"),
                     "the repository's control directory was replaced or moved during the run: the .git here now "
                     "is not the one that was",
                     "find your repository's original .git (the run may have renamed it) before you run git here"});
    }
    walker.walk(a, index ? &*index : nullptr);
    // What this walk read is kept for the next one, unless the area is small or was not walked whole.
    if (index && index->dirty() && !walker.exhausted() && !walker.too_deep() &&
        (index->was_loaded() || budget_before - walker.budget_left() >= index_.min_entries))
      (void)index->save();  // a cache: a failure to write it costs the next run a full walk, nothing more
    if (walker.too_deep()) {
      out.push_back({a.shown, "not fully checked for what the host runs: directories nested deeper than 256 levels",
                     "check it yourself: find " + a.path + " -mindepth 256 -name .git"});
    }
    if (walker.exhausted()) {
      out.push_back({a.shown,
                     "not fully checked for what the host runs: more than " + std::to_string(entry_budget) + " entries",
                     "check it yourself: find " + a.path + " -name .git -newer <a file older than the run>"});
      break;
    }
  }
  if (cost) {
    cost->listed = walker.listed();
    cost->from_index = walker.from_index();
  }
  return out;
}

}  // namespace paddock::gate
