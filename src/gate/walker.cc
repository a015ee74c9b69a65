#include "gate/walker.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "gate/git_rules.h"
#include "gate/git_watch.h"
#include "gate/toolchain.h"
#include "policy/path_util.h"
#include "policy/protected_paths.h"

namespace paddock::gate {
namespace {

constexpr const char* kToolsUser = "your tools use it";

// What an entry's name makes it to the walk. Looked up once per entry: the cost of the walk is
// this lookup, not a stat.
enum class Name : unsigned char { Other, DotGit, Head, Redirect, Protected, Customize, VenvMarker, SiteDir };

struct NameTable {
  std::unordered_map<std::string_view, Name> kinds;
  std::unordered_map<std::string_view, std::vector<const ProtectedEntry*>> protected_by_first;
  // Which (first byte, length) pairs any name in KINDS has: most entries are ruled out by these
  // two bytes of the name, without hashing it.
  static constexpr std::size_t kMaxLen = 64;
  bool maybe[256][kMaxLen] = {};
  void add(std::string_view name, Name k) {
    kinds[name] = k;
    if (!name.empty() && name.size() < kMaxLen) maybe[static_cast<unsigned char>(name[0])][name.size()] = true;
  }
};

const NameTable& names() {
  static const NameTable t = [] {
    NameTable t;
    for (const ProtectedEntry& e : workspace_protected_entries()) {
      std::string_view p = e.path;
      std::string_view first = p.substr(0, p.find('/'));
      if (first == ".git") continue;  // git's own rules judge everything in a .git
      t.add(first, Name::Protected);
      t.protected_by_first[first].push_back(&e);
    }
    t.add(".git", Name::DotGit);
    t.add("HEAD", Name::Head);
    for (const char* n : {"commondir", "gitdir", "config.worktree"}) t.add(n, Name::Redirect);
    for (const char* n : {"pyvenv.cfg", "conda-meta"}) t.add(n, Name::VenvMarker);
    for (const char* n : {"site-packages", "dist-packages"}) t.add(n, Name::SiteDir);
    return t;
  }();
  return t;
}

Name name_kind(const char* name) {
  const NameTable& t = names();
  const std::size_t len = std::strlen(name);
  if (len < NameTable::kMaxLen && t.maybe[static_cast<unsigned char>(name[0])][len]) {
    auto it = t.kinds.find(std::string_view(name, len));
    if (it != t.kinds.end()) return it->second;
  }
  if ((name[0] == 's' || name[0] == 'u') && len >= 13 && customize_name(std::string_view(name, len))) return Name::Customize;
  return Name::Other;
}

bool is_whiteout(const struct stat& st) { return S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0); }

}  // namespace

Walker::Walker(const Baseline& base, std::size_t budget, const TrustedFn& trusted, const std::set<std::string>& covered,
               std::vector<std::string> roots, std::vector<LeftBehind>& out)
    : base_(base), budget_(budget), trusted_(trusted), covered_(&covered), roots_(std::move(roots)), out_(out) {}

Walker::Walker(Baseline& record, std::vector<LeftBehind>& unused)
    : base_(record), record_(&record), budget_(100'000), out_(unused) {}

void Walker::record_git_dir(Baseline& record, const WalkArea& area) {
  std::vector<LeftBehind> unused;
  Walker w(record, unused);
  w.area_ = &area;
  w.own_intact_ = true;
  w.roots_ = {area.path};
  w.dot_git(area.fd->get(), area.shown == "/" ? "" : area.shown, 0);
}

void Walker::walk(const WalkArea& area, DirIndex* index) {
  area_ = &area;
  index_ = index;
  struct stat st;
  own_intact_ = area.had_git_dir && fstatat(area.fd->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                st.st_dev == area.git_dev && st.st_ino == area.git_ino;
  tree(area.fd->get(), area.shown == "/" ? "" : area.shown, 0, false);
  area_ = nullptr;
  index_ = nullptr;
}

std::uint64_t Walker::rules_fingerprint() {
  // The names a listing keeps (name_kind), and a version for the rules written as code
  // (customize_name, site directories, what counts as a subdirectory): raise it when they change.
  constexpr std::string_view kCodeRules = "walker-names 1";
  static const std::uint64_t fp = [&] {
    std::vector<std::string> all;
    for (const auto& [name, kind] : names().kinds) all.push_back(std::string(name) + '=' + std::to_string(int(kind)));
    std::sort(all.begin(), all.end());
    std::uint64_t h = sys::fnv1a(kCodeRules);
    for (const std::string& n : all) h = sys::fnv1a(n + '\n', h);
    return h;
  }();
  return fp;
}

bool Walker::spend(std::size_t n) {
  if (budget_ < n) {
    budget_ = 0;
    exhausted_ = true;
    return false;
  }
  budget_ -= n;
  return true;
}

bool Walker::list(int fd, Listing& l, std::vector<Listed>* all) {
  ++listed_;
  return for_each_entry(fd, [&](const char* name, unsigned char type) {
    const Name k = name_kind(name);
    if (all) all->push_back({name, type});
    if (k != Name::Other) l.hits.emplace_back(name);
    if (k == Name::DotGit) return;  // entered by git's rules, not as a plain directory
    if (type == DT_DIR) {
      l.subdirs.emplace_back(name);
    } else if (type == DT_UNKNOWN) {
      struct stat st;
      if (stat_at(fd, name, st) && S_ISDIR(st.st_mode)) l.subdirs.emplace_back(name);
    }
  });
}

void Walker::tree(int fd, const std::string& path, int depth, bool site_dir) {
  // The directory's metadata before its entries: a listing is never kept as older than it is.
  // A site directory is always read (its .pth files decide which modules matter).
  struct stat st;
  const bool indexed = index_ != nullptr && !site_dir && fstat(fd, &st) == 0;
  if (indexed) {
    if (const Listing* known = index_->find(st)) {
      ++from_index_;
      if (spend(1)) visit(fd, path, depth, site_dir, *known, {});
      return;
    }
  }
  Listing l;
  std::vector<Listed> all;
  const bool whole = list(fd, l, site_dir ? &all : nullptr);
  if (indexed && whole) index_->put(st, l);
  visit(fd, path, depth, site_dir, l, all);
}

void Walker::enter(int at, const std::string& rel, const std::string& parent, const std::string& name, int depth,
                   bool site_dir) {
  if (index_ != nullptr && !site_dir && rel.size() < 1024) {
    struct stat st;
    if (fstatat(at, rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) return;
    if (const Listing* known = index_->find(st)) {
      if (known->hits.empty()) {
        // Unchanged, and nothing in it a rule looks at: only its subdirectories, each stat'ed
        // through it (it holds the same entries, so each name leads where it led).
        ++from_index_;
        if (!spend(1)) return;
        if (depth >= kMaxDepth) {
          if (!known->subdirs.empty()) too_deep_ = true;
          return;
        }
        // Its own path only when something below needs it (most directories: nothing does).
        std::string path;
        for (const std::string& sub : known->subdirs) {
          if (exhausted_) return;
          if (path.empty()) path = parent + "/" + name;
          enter(at, rel + "/" + sub, path, sub, depth + 1, name_kind(sub.c_str()) == Name::SiteDir);
        }
        return;
      }
    }
  }
  sys::UniqueFd fd(open_dir(at, rel.c_str()));
  if (fd) tree(fd.get(), parent + "/" + name, depth, site_dir);
}

void Walker::visit(int fd, const std::string& path, int depth, bool site_dir, const Listing& l,
                   const std::vector<Listed>& all) {
  struct Hit {
    const std::string* name;
    Name kind;
  };
  std::vector<Hit> hits;
  bool head = false, venv = false;
  for (const std::string& name : l.hits) {
    const Name k = name_kind(name.c_str());
    if (k == Name::Head) head = true;
    else if (k == Name::VenvMarker) venv = true;
    else if (k != Name::Other) hits.push_back({&name, k});
  }
  // Git first: a directory with a HEAD is judged as git judges it, with the common directory its
  // commondir leads to, before a `commondir` or `config.worktree` here is moved aside by name.
  bool git_directory = false;
  for (const Hit& h : hits)
    if (h.kind == Name::DotGit) dot_git(fd, path, depth);
  if (head && git::valid_head(fd)) {
    // A git directory by git's rule (objects/ and refs/ here, or a commondir leading to them: its
    // judgement looks there).
    struct stat st;
    git_directory = stat_at(fd, "commondir", st) ||
                    (exists_in_view(fd, path, "objects") && exists_in_view(fd, path, "refs"));
    if (git_directory) git_dir(fd, path, depth);
  }
  for (const Hit& h : hits) {
    const std::string& name = *h.name;
    switch (h.kind) {
      case Name::Redirect: {
        struct stat st;
        if (stat_at(fd, name.c_str(), st) && changed(st) && !(area_->lower && is_whiteout(st)))
          flag(fd, name.c_str(), path + "/" + name, *git_name(name));
        break;
      }
      case Name::Protected:
        protected_entry(fd, path, name);
        break;
      case Name::Customize:
        toolchain_entry(fd, path, name);
        break;
      default:
        break;
    }
  }
  if (site_dir) site_packages(fd, path, all);
  if (venv) python_env(fd, path);

  if (depth >= kMaxDepth) {
    // A repository hidden deeper is still one a gitlink can lead `git status` to: said, not
    // silently skipped.
    if (!l.subdirs.empty()) too_deep_ = true;
    return;
  }
  for (const std::string& name : l.subdirs) {
    if (exhausted_) return;
    if (git_directory && (name == "objects" || name == "refs")) continue;  // the repository's own data
    enter(fd, name, path, name, depth + 1, name_kind(name.c_str()) == Name::SiteDir);
  }
}

// A protected entry (src/policy/protected_paths.cc) whose first component is NAME, in a
// directory at any depth: what the run created or changed there is moved aside, as for the
// project's own (watch.cc), which the policy's list covers and this leaves alone.
void Walker::protected_entry(int fd, const std::string& path, const std::string& name) {
  if (record_ != nullptr) return;
  auto it = names().protected_by_first.find(name);
  if (it == names().protected_by_first.end()) return;
  for (const ProtectedEntry* e : it->second) {
    // Down the entry's components: each directory on the way opened without following a link; a
    // link (or anything else) the run put on the way is moved aside whole.
    std::string_view rest = e->path;
    int at = fd;
    std::string at_path = path;
    sys::UniqueFd held;
    for (;;) {
      const std::size_t slash = rest.find('/');
      const std::string c(rest.substr(0, slash));
      const std::string p = at_path + "/" + c;
      struct stat st;
      if (!stat_at(at, c.c_str(), st)) break;
      if (!area_->lower && covered_ && covered_->count(p)) break;  // the policy's own: watch.cc checks it
      if (area_->lower && is_whiteout(st)) break;
      if (slash == std::string_view::npos) {
        if (S_ISDIR(st.st_mode)) {
          sys::UniqueFd d(open_dir(at, c.c_str()));
          if (d) changed_below(d.get(), p, e->reason, 16);
        } else if (changed(st)) {
          flag(at, c.c_str(), p, e->reason, kToolsUser);
        }
        break;
      }
      if (!S_ISDIR(st.st_mode)) {
        if (changed(st)) flag(at, c.c_str(), p, std::string(e->reason) + " (" + path + "/" + e->path + " is reached through it)", kToolsUser);
        break;
      }
      sys::UniqueFd next(open_dir(at, c.c_str()));
      if (!next) break;
      held = std::move(next);
      at = held.get();
      at_path = p;
      rest.remove_prefix(slash + 1);
    }
  }
}

// Every file, link or other non-directory below FD (at PATH) that changed is moved aside;
// directories are entered, DEPTH levels at most.
void Walker::changed_below(int fd, const std::string& path, const std::string& why, int depth) {
  std::vector<std::string> entries;
  for_each_entry(fd, [&](const char* name, unsigned char) { entries.emplace_back(name); });
  std::sort(entries.begin(), entries.end());
  for (const std::string& name : entries) {
    struct stat st;
    if (!stat_at(fd, name.c_str(), st)) continue;
    const std::string p = path + "/" + name;
    if (S_ISDIR(st.st_mode)) {
      if (depth <= 0) continue;
      sys::UniqueFd sub(open_dir(fd, name.c_str()));
      if (sub) changed_below(sub.get(), p, why, depth - 1);
    } else if (changed(st) && !(area_->lower && is_whiteout(st))) {
      flag(fd, name.c_str(), p, why, kToolsUser);
    }
  }
}

bool Walker::stat_at(int fd, const char* name, struct stat& st) { return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0; }

int Walker::open_dir(int fd, const char* name) {
  return openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
}

bool Walker::changed(const struct stat& st) const {
  if (record_ != nullptr) {
    record_->record(st);
    return false;
  }
  return base_.changed(st);
}

bool Walker::exists_in_view(int fd, const std::string& path, const char* name) const {
  struct stat st;
  if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) return !(area_->lower && is_whiteout(st));
  if (!area_->lower || !path::is_at_or_under(path, area_->shown)) return false;
  std::string rel = path.substr(std::min(path.size(), area_->shown.size()));
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  rel = rel.empty() ? name : rel + "/" + name;
  return fstatat(area_->lower->get(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

std::string Walker::host_path(const std::string& shown) const {
  if (area_ && area_->lower && path::is_at_or_under(shown, area_->shown))
    return area_->path + shown.substr(area_->shown == "/" ? 0 : area_->shown.size());
  return shown;
}

void Walker::flag(int fd, const char* name, std::string path, const std::string& why, const char* used_by) {
  if (record_ != nullptr) return;
  if (trusted_ && trusted_(path)) return;
  std::string action = move_aside(fd, name, path, used_by);
  out_.push_back({std::move(path), why, std::move(action)});
}

}  // namespace paddock::gate
