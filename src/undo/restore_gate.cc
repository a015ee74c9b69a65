#include "undo/restore_gate.h"

#include <sys/stat.h>

#include "policy/path_util.h"
#include "undo/tree_fs.h"

namespace paddock::undo {
namespace {

mode_t type_bits(EntryType t) {
  switch (t) {
    case EntryType::File: return S_IFREG;
    case EntryType::Dir: return S_IFDIR;
    case EntryType::Symlink: return S_IFLNK;
    case EntryType::Fifo: return S_IFIFO;
    case EntryType::Other: return S_IFSOCK;  // a socket or device: never recreated anyway
  }
  return 0;
}

std::string absolute(const std::string& root, const std::string& rel) {
  if (rel.empty()) return root;
  return root == "/" ? "/" + rel : root + "/" + rel;
}

}  // namespace

std::optional<gate::Verdict> judge_entry(const std::string& root, const ManifestEntry& e, const std::string& home) {
  if (e.path.empty()) return std::nullopt;  // the root itself: never created, only its mode restored
  const mode_t mode = type_bits(e.st.type) | e.st.mode;
  if (auto v = gate::judge_path(e.path, gate::RootKind::Workspace, mode)) return v;
  if (home.empty()) return gate::judge_path(e.path, gate::RootKind::Home, mode);
  const std::string abs = absolute(root, e.path);
  if (path::is_strictly_under(abs, home))
    return gate::judge_path(abs.substr(home == "/" ? 1 : home.size() + 1), gate::RootKind::Home, mode);
  return std::nullopt;
}

mode_t restorable_mode(EntryType type, mode_t mode) {
  return type == EntryType::File ? mode & ~static_cast<mode_t>(S_ISUID | S_ISGID) : mode;
}

bool WrittenPaths::Less::operator()(const std::string& a, const std::string& b) const { return path_less(a, b); }

void WrittenPaths::add(const std::string& abs, bool trusted) {
  auto [it, fresh] = paths_.emplace(abs, trusted);
  if (!fresh) it->second = it->second && trusted;
}

bool WrittenPaths::trusted(const std::string& abs) const {
  // In path_less order a directory comes right before everything in it.
  bool any = false;
  for (auto it = paths_.lower_bound(abs); it != paths_.end() && path::is_at_or_under(it->first, abs); ++it) {
    if (!it->second) return false;
    any = true;
  }
  return any;
}

WriteCheck real_write_check() {
  return [](const std::vector<gate::Area>& areas) -> CheckAfter {
    auto check = std::make_shared<gate::Check>(gate::Check::before_write(areas));
    return [check](const gate::Trusted& trusted) { return check->after(trusted); };
  };
}

std::vector<gate::Area> restore_areas(const std::vector<std::string>& roots, const std::string& home) {
  std::vector<gate::Area> out;
  bool home_added = false;
  for (const std::string& r : roots) {
    const bool is_home = !home.empty() && r == home;
    out.push_back({r, is_home ? gate::RootKind::Home : gate::RootKind::Workspace});
    home_added = home_added || is_home;
  }
  // A root above HOME (--allow /home): HOME's own entries are checked as HOME's.
  if (!home_added && !home.empty()) {
    for (const std::string& r : roots) {
      if (path::is_strictly_under(home, r)) {
        out.push_back({home, gate::RootKind::Home});
        break;
      }
    }
  }
  return out;
}

}  // namespace paddock::undo
