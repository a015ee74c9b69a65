#include "gate/git_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "gate/quarantine.h"
#include "policy/path_util.h"
#include "sys/anchored_dir.h"

namespace paddock::gate {
namespace {

constexpr const char* kConfigWhy =
    "git runs the programs a repository's config names (core.fsmonitor, core.hooksPath, core.sshCommand, "
    "filters, aliases) on the next git command there";
constexpr const char* kRedirectWhy = "sends git to another repository's config and hooks";
constexpr const char* kHooksWhy = "git runs its hooks on commit, checkout, merge and push";

class Walker {
 public:
  // After the run: what changed against BASE is moved aside and added to OUT.
  Walker(const Baseline& base, std::size_t budget, const std::function<bool(const std::string&)>& trusted,
         std::vector<LeftBehind>& out)
      : base_(base), budget_(budget), trusted_(trusted), out_(out) {}
  // Before the run: every control file visited is recorded in RECORD, nothing is moved.
  Walker(Baseline& record, std::vector<LeftBehind>& unused)
      : base_(record), record_(&record), budget_(kRecordBudget), out_(unused) {}

  bool exhausted() const { return exhausted_; }
  bool too_deep() const { return too_deep_; }

  // A directory git may take for a repository's control directory (.git, a bare repository, a
  // submodule's or a linked worktree's git directory).
  void git_dir(int fd, const std::string& path, int depth) {
    static constexpr struct {
      const char* name;
      const char* why;
    } kFiles[] = {
        {"config", kConfigWhy},
        {"config.worktree", kConfigWhy},
        {"commondir", kRedirectWhy},
        {"gitdir", kRedirectWhy},
        {"objects", "holds objects/info/alternates, which makes git read objects from another repository"},
    };
    for (const auto& f : kFiles) {
      struct stat st;
      if (!stat_at(fd, f.name, st)) continue;
      if (std::strcmp(f.name, "objects") == 0) {
        if (S_ISLNK(st.st_mode)) {
          if (changed(st)) flag(fd, "objects", path + "/objects", f.why);
          continue;
        }
        if (!S_ISDIR(st.st_mode)) continue;
        sys::UniqueFd objects(open_dir(fd, "objects"));
        struct stat info;
        if (!objects || !stat_at(objects.get(), "info", info)) continue;
        if (!S_ISDIR(info.st_mode)) {
          if (changed(info)) flag(objects.get(), "info", path + "/objects/info", f.why);
          continue;
        }
        sys::UniqueFd info_fd(open_dir(objects.get(), "info"));
        struct stat alt;
        if (info_fd && stat_at(info_fd.get(), "alternates", alt) && changed(alt))
          flag(info_fd.get(), "alternates", path + "/objects/info/alternates",
               "makes git read objects from another repository");
        continue;
      }
      if (changed(st)) flag(fd, f.name, path + "/" + f.name, f.why);
    }
    struct stat st;
    if (stat_at(fd, "info", st)) {
      if (!S_ISDIR(st.st_mode)) {
        if (changed(st)) flag(fd, "info", path + "/info", "holds info/attributes, which chooses filters and diff drivers");
      } else if (sys::UniqueFd info{open_dir(fd, "info")}) {
        struct stat attr;
        if (stat_at(info.get(), "attributes", attr) && changed(attr))
          flag(info.get(), "attributes", path + "/info/attributes", "chooses the filters and diff drivers git runs on files");
      }
    }
    if (stat_at(fd, "hooks", st)) {
      if (changed(st) || !S_ISDIR(st.st_mode)) {
        // Entries added, removed or renamed, or the directory itself replaced: one line for it.
        if (changed(st)) flag(fd, "hooks", path + "/hooks", kHooksWhy);
      } else if (sys::UniqueFd hooks{open_dir(fd, "hooks")}) {
        for_each_entry(hooks.get(), [&](const char* name, unsigned char) {
          struct stat h;
          if (stat_at(hooks.get(), name, h) && changed(h)) flag(hooks.get(), name, path + "/hooks/" + name, kHooksWhy);
        });
      }
    }
    if (depth >= kMaxDepth) return;
    // Submodules' git directories (names may contain '/': modules/lib/a) and linked worktrees'.
    for (const char* sub : {"modules", "worktrees"}) {
      if (!stat_at(fd, sub, st)) continue;
      if (!S_ISDIR(st.st_mode)) {
        if (changed(st)) flag(fd, sub, path + "/" + sub, kRedirectWhy);
        continue;
      }
      sys::UniqueFd d(open_dir(fd, sub));
      if (d) nested_git_dirs(d.get(), path + "/" + sub, depth + 1);
    }
  }

  // Any directory in a writable area: every `.git` in it, every bare repository, recursively.
  void tree(int fd, const std::string& path, int depth) {
    bool head = false, objects = false, refs = false;
    std::vector<std::string> subdirs;
    for_each_entry(fd, [&](const char* name, unsigned char type) {
      if (std::strcmp(name, ".git") == 0) {
        dot_git(fd, path);
        return;
      }
      if (std::strcmp(name, "HEAD") == 0) head = true;
      if (std::strcmp(name, "objects") == 0) objects = true;
      if (std::strcmp(name, "refs") == 0) refs = true;
      if (type == DT_DIR) {
        subdirs.emplace_back(name);
      } else if (type == DT_UNKNOWN) {
        struct stat st;
        if (stat_at(fd, name, st) && S_ISDIR(st.st_mode)) subdirs.emplace_back(name);
      }
    });
    // Git takes a directory holding HEAD, objects/ and refs/ for a bare repository and uses it
    // when run there (safe.bareRepository defaults to "all").
    const bool bare = head && objects && refs;
    if (bare) git_dir(fd, path, depth);
    if (depth >= kMaxDepth) {
      // A repository hidden deeper is still one a gitlink can lead `git status` to: said, not
      // silently skipped.
      if (!subdirs.empty()) too_deep_ = true;
      return;
    }
    for (const std::string& name : subdirs) {
      if (exhausted_) return;
      if (bare && (name == "objects" || name == "refs")) continue;  // the repository's own data
      sys::UniqueFd sub(open_dir(fd, name.c_str()));
      if (sub) tree(sub.get(), path + "/" + name, depth + 1);
    }
  }

 private:
  static constexpr int kMaxDepth = 256;

  static constexpr std::size_t kRecordBudget = 100'000;

 public:
  // A `.git` entry in PATH: a directory is a repository's control directory; a file (gitdir: ...)
  // or a symlink sends git elsewhere.
  void dot_git(int fd, const std::string& path) {
    const std::string p = path + "/.git";
    struct stat st;
    if (!stat_at(fd, ".git", st)) return;
    if (S_ISDIR(st.st_mode)) {
      sys::UniqueFd d(open_dir(fd, ".git"));
      if (d) git_dir(d.get(), p, 0);
      return;
    }
    if (changed(st))
      flag(fd, ".git", p, S_ISLNK(st.st_mode) ? "a .git symlink makes git use the repository it points to, with its config and hooks"
                                  : "a .git file (gitdir: ...) makes git use the repository it names, with its config and hooks");
  }

 private:
  void nested_git_dirs(int fd, const std::string& path, int depth) {
    for_each_entry(fd, [&](const char* name, unsigned char type) {
      if (type != DT_DIR && type != DT_UNKNOWN) {
        struct stat st;
        if (stat_at(fd, name, st) && changed(st)) flag(fd, name, path + "/" + name, kRedirectWhy);
        return;
      }
      sys::UniqueFd d(open_dir(fd, name));
      if (!d) {
        struct stat st;
        if (stat_at(fd, name, st) && changed(st)) flag(fd, name, path + "/" + name, kRedirectWhy);
        return;
      }
      struct stat st;
      const bool is_git_dir = stat_at(d.get(), "HEAD", st) || stat_at(d.get(), "config", st) ||
                              stat_at(d.get(), "commondir", st) || stat_at(d.get(), "gitdir", st);
      if (is_git_dir) {
        git_dir(d.get(), path + "/" + name, depth);
      } else if (depth < kMaxDepth) {
        nested_git_dirs(d.get(), path + "/" + name, depth + 1);
      }
    });
  }

  template <typename F>
  void for_each_entry(int fd, F&& f) {
    // getdents64 straight on FD (no DIR: no dup, fstat and close per directory), from its start:
    // the area's descriptor may have been read before.
    struct linux_dirent64 {
      ino64_t d_ino;
      off64_t d_off;
      unsigned short d_reclen;
      unsigned char d_type;
      char d_name[];
    };
    if (lseek(fd, 0, SEEK_SET) != 0) return;
    alignas(8) char buf[32768];
    for (;;) {
      long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) return;
      for (long off = 0; off < n;) {
        auto* e = reinterpret_cast<linux_dirent64*>(buf + off);
        off += e->d_reclen;
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        if (budget_ == 0) {
          exhausted_ = true;
          return;
        }
        --budget_;
        f(static_cast<const char*>(e->d_name), e->d_type);
      }
    }
  }

  static bool stat_at(int fd, const char* name, struct stat& st) {
    return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  }
  static int open_dir(int fd, const char* name) {
    return openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  }
  bool changed(const struct stat& st) const {
    if (record_ != nullptr) {
      record_->record(st);
      return false;
    }
    return base_.changed(st);
  }
  // Moves NAME (in FD) aside, beside itself, so that git no longer finds it, and says so.
  void flag(int fd, const char* name, std::string path, const char* why) {
    if (trusted_ && trusted_(path)) return;
    std::string action = move_aside(fd, name, path, "you run git there");
    out_.push_back({std::move(path), why, std::move(action)});
  }

  const Baseline& base_;
  Baseline* record_ = nullptr;
  std::size_t budget_;
  std::function<bool(const std::string&)> trusted_;
  std::vector<LeftBehind>& out_;
  bool exhausted_ = false;
  bool too_deep_ = false;
};

}  // namespace

std::optional<std::string> git_name(std::string_view name) {
  if (name == "HEAD")
    return std::string("a HEAD file makes its directory a git repository (with objects/ and refs/ beside it, or a "
                       "commondir leading to them), whose config and hooks git then runs");
  if (name == "commondir" || name == "gitdir") return std::string(kRedirectWhy);
  if (name == "config.worktree") return std::string(kConfigWhy);
  return std::nullopt;
}

GitWatch GitWatch::before(const Policy& policy, const std::vector<SandboxMount>& mounts) {
  GitWatch w;
  w.base_.start();
  std::vector<std::string> roots;
  for (const PathRule& r : policy.paths)
    if (grants(r.access, Access::Write) && r.symlink_target.empty()) roots.push_back(r.path);
  // An overlay's host_path is its read-only lower layer: the sandbox cannot change it. Its writes
  // land in the upper directory, which no host tool uses as a work tree (a jail's sync never
  // publishes .git from it: docs/jails.md).
  for (const SandboxMount& m : mounts)
    if (!m.host_path.empty() && m.overlay_upper.empty() && grants(m.access, Access::Write))
      roots.push_back(m.host_path);
  std::sort(roots.begin(), roots.end());
  for (const std::string& root : roots) {
    const bool nested = std::any_of(w.areas_.begin(), w.areas_.end(),
                                    [&](const Area& a) { return path::is_at_or_under(root, a.path); });
    if (nested) continue;
    auto fd = sys::open_dir_no_symlinks(root);
    if (!fd) continue;  // a file, or absent: nothing a repository can be made in
    Area a{root, std::make_shared<const sys::UniqueFd>(std::move(*fd))};
    struct stat st;
    if (fstatat(a.fd->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
      a.had_git_dir = true;
      a.git_dev = st.st_dev;
      a.git_ino = st.st_ino;
      // Its control files as they are now (the rest of the area is judged by the clock alone).
      std::vector<LeftBehind> unused;
      Walker(w.base_, unused).dot_git(a.fd->get(), root);
    }
    w.areas_.push_back(std::move(a));
  }
  return w;
}

std::vector<LeftBehind> GitWatch::after(std::size_t entry_budget,
                                        const std::function<bool(const std::string&)>& trusted) const {
  std::vector<LeftBehind> out;
  Walker walker(base_, entry_budget, trusted, out);
  for (const Area& a : areas_) {
    // With namespaces the mounts hold .git in place; without, it can be renamed and rebuilt.
    struct stat st;
    if (a.had_git_dir && (fstatat(a.fd->get(), ".git", &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != a.git_dev ||
                          st.st_ino != a.git_ino)) {
      out.push_back({path::join(a.path, ".git"),
                     "the repository's control directory was replaced or moved during the run: the .git here now "
                     "is not the one that was",
                     "find your repository's original .git (the run may have renamed it) before you run git here"});
    }
    walker.tree(a.fd->get(), a.path == "/" ? "" : a.path, 0);
    if (walker.too_deep()) {
      out.push_back({a.path, "not fully checked for git repositories: directories nested deeper than 256 levels",
                     "check it yourself: find " + a.path + " -mindepth 256 -name .git"});
    }
    if (walker.exhausted()) {
      out.push_back({a.path,
                     "not fully checked for git repositories: more than " + std::to_string(entry_budget) + " entries",
                     "check it yourself: find " + a.path + " -name .git -newer <a file older than the run>"});
      break;
    }
  }
  return out;
}

}  // namespace paddock::gate
