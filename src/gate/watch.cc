#include "gate/watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "gate/quarantine.h"
#include "policy/path_util.h"
#include "sys/anchored_dir.h"

namespace paddock::gate {
namespace {

constexpr const char* kUsedBy = "your tools use it";
constexpr int kDepth = 16;

// Everything below the directory FD (PATH) whose inode changed against BASE is moved aside (new
// or edited files and links) or, with RECORD set, recorded in it. Directories are entered (at
// most DEPTH deep), not moved themselves.
void visit_entries(int fd, const std::string& path, const std::string& why, const Baseline& base, Baseline* record,
                   int depth, const TrustedPath& trusted, std::vector<LeftBehind>& out) {
  int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup_fd < 0 ? nullptr : fdopendir(dup_fd);
  if (d == nullptr) {
    if (dup_fd >= 0) close(dup_fd);
    return;
  }
  rewinddir(d);  // the duplicate shares its offset with FD
  std::vector<std::string> names;
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    struct stat st;
    if (fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    const std::string p = path + "/" + name;
    if (S_ISDIR(st.st_mode)) {
      if (depth <= 0) continue;
      int sub = openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      visit_entries(sub, p, why, base, record, depth - 1, trusted, out);
      close(sub);
    } else if (record != nullptr) {
      record->record(st);
    } else if (base.changed(st) && !(trusted && trusted(p))) {
      out.push_back({p, why, move_aside(fd, name, p, kUsedBy)});
    }
  }
}

}  // namespace

Watch Watch::before(const Policy& policy, const std::vector<SandboxMount>& mounts, IndexPlace index) {
  Watch w;
  w.base_.start();
  w.protected_ = policy.protected_paths;
  // What is in the protected paths now, to compare exactly afterwards.
  std::vector<LeftBehind> unused;
  for (const ProtectedPath& p : w.protected_) {
    if (!p.exists) continue;
    struct stat st;
    if (lstat(p.path.c_str(), &st) != 0) continue;
    w.base_.record(st);
    if (!S_ISDIR(st.st_mode)) continue;
    auto fd = sys::open_dir_no_symlinks(p.path);
    if (fd) visit_entries(fd->get(), p.path, p.reason, w.base_, &w.base_, kDepth, {}, unused);
  }
  w.tree_ = TreeWatch::before(policy, mounts, std::move(index));
  w.agent_config_.push_back(AgentConfigWatch::before(policy));
  return w;
}

Watch Watch::before(const WatchSpec& spec) {
  Policy policy;
  for (const std::string& area : spec.writable) policy.paths.push_back(PathRule{area, area, Access::ReadWrite});
  policy.protected_paths = spec.protected_paths;
  Watch w = before(policy, {});
  w.agent_config_.clear();
  for (const std::string& home : spec.homes)
    w.agent_config_.push_back(
        AgentConfigWatch::before(home, {PathRule{home, home, Access::ReadWrite}}, known_agent_configs()));
  return w;
}

void Watch::check_protected(const ProtectedPath& p, const TrustedPath& trusted, std::vector<LeftBehind>& out) const {
  if (trusted && trusted(p.path)) return;
  // Most protected paths are absent and stay so: one lstat, then the careful way only if something
  // is there (through whatever path the run made).
  struct stat quick;
  if (!p.exists && lstat(p.path.c_str(), &quick) != 0 && errno == ENOENT) return;
  const std::string parent = path::parent(p.path);
  const std::string name = p.path.substr(parent == "/" ? 1 : parent.size() + 1);
  auto dir = sys::open_dir_no_symlinks(parent);
  if (!dir) {
    // Gone, or a symlink on the way (one the run made): nothing is moved through a symlink.
    struct stat st;
    if (!p.exists && stat(p.path.c_str(), &st) == 0)
      out.push_back({p.path, p.reason, "left in place (a symlink leads to it: " + dir.error().describe() +
                                           "); remove it before " + kUsedBy});
    return;
  }
  struct stat st;
  if (fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (!p.exists || !S_ISDIR(st.st_mode)) {
    if (!p.exists || base_.changed(st)) out.push_back({p.path, p.reason, move_aside(dir->get(), name, p.path, kUsedBy)});
    return;
  }
  int fd = openat(dir->get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  visit_entries(fd, p.path, p.reason, base_, nullptr, kDepth, trusted, out);
  close(fd);
}

namespace {

void find_at_size(int fd, const std::string& path, std::uint64_t size, const Baseline& base, std::size_t max,
                  std::size_t& budget, int depth, std::vector<std::string>& out) {
  int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup_fd < 0 ? nullptr : fdopendir(dup_fd);
  if (d == nullptr) {
    if (dup_fd >= 0) close(dup_fd);
    return;
  }
  rewinddir(d);  // the duplicate shares its offset with FD, which may have been read before
  std::vector<std::string> dirs;
  while (dirent* e = readdir(d)) {
    if (out.size() >= max || budget == 0) break;
    --budget;
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (e->d_type == DT_DIR) {
      dirs.emplace_back(e->d_name);
      continue;
    }
    if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) continue;
    struct stat st;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) dirs.emplace_back(e->d_name);
    else if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == size && base.changed(st))
      out.push_back(path + "/" + e->d_name);
  }
  closedir(d);
  if (depth <= 0) return;
  for (const std::string& name : dirs) {
    if (out.size() >= max || budget == 0) return;
    int sub = openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    find_at_size(sub, path + "/" + name, size, base, max, budget, depth - 1, out);
    close(sub);
  }
}

}  // namespace

std::vector<std::string> Watch::files_at_size(std::uint64_t size, std::size_t max) const {
  std::vector<std::string> out;
  std::size_t budget = 1'000'000;
  for (const auto& a : tree_.areas()) find_at_size(a.fd->get(), a.shown == "/" ? "" : a.shown, size, base_, max, budget, 64, out);
  return out;
}

std::vector<LeftBehind> Watch::after(const TrustedPath& trusted, WalkCost* cost) const {
  // The walk first (git's rules, protected names below the areas' tops, toolchains): it moves
  // whole control files and directories (.git/hooks) aside itself. The protected paths the policy
  // names are checked below, against what they held before the run.
  std::set<std::string> checked_below;
  for (const ProtectedPath& p : protected_) checked_below.insert(p.path);
  std::vector<LeftBehind> out = tree_.after(TreeWatch::kEntryBudget, trusted, checked_below, cost);
  // What the walk handled (a project's .git/config put back, whose new inode a comparison with the
  // baseline would take for the run's) is not checked again below.
  std::set<std::string> handled;
  for (const LeftBehind& l : out) handled.insert(l.path);
  // Agents' configuration next: it puts back what the agent's own files held, which moving them
  // aside would not; the protected paths it covers (~/.claude/settings.json, ~/.claude/hooks when
  // ~/.claude is writable) are left to it.
  for (const AgentConfigWatch& a : agent_config_)
    for (LeftBehind& l : a.after(trusted)) out.push_back(std::move(l));
  auto covered = [&](const std::string& path) {
    return std::any_of(agent_config_.begin(), agent_config_.end(), [&](const AgentConfigWatch& a) { return a.covers(path); });
  };
  for (const ProtectedPath& p : protected_)
    if (!covered(p.path) && !handled.count(p.path)) check_protected(p, trusted, out);
  return out;
}

}  // namespace paddock::gate
