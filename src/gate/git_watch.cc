// The after-run walk's git rules (git_watch.h says what they are and why).
#include "gate/git_watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "gate/git_rules.h"
#include "gate/walker.h"
#include "policy/path_util.h"
#include "sys/anchored_dir.h"

namespace paddock::gate {
namespace {

constexpr const char* kConfigWhy =
    "git runs the programs a repository's config names (core.fsmonitor, core.hooksPath, core.sshCommand, "
    "filters, aliases) on the next git command there";
constexpr const char* kRedirectWhy = "sends git to another repository's config and hooks";
constexpr const char* kGitdirWhy =
    "names a linked worktree's work tree: `git worktree prune` (run by `git gc --auto`) deletes the worktree's git "
    "directory when it names none, and `git worktree repair` writes the file it names";
constexpr const char* kHooksWhy = "git runs its hooks on commit, checkout, merge and push";
constexpr const char* kHeadWhy =
    "a HEAD makes its directory a git repository (with objects/ and refs/ in its common directory), whose config and "
    "hooks git then runs; this repository was not there before the run";
constexpr const char* kTodoWhy = "a rebase in progress: `git rebase --continue` runs its `exec` lines";
constexpr std::size_t kMaxGitfile = 1u << 20;

// A regular file of at most MAX bytes at NAME in DIR (following a symlink, as git does).
std::optional<std::string> read_file(int dir, const char* name, std::size_t max) {
  sys::UniqueFd f(openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  struct stat st;
  if (!f || fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > max)
    return std::nullopt;
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = read(f.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

// The path of an open descriptor, as the kernel has it.
std::string fd_path(int fd) {
  char buf[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

std::optional<std::string> git_name(std::string_view name) {
  if (name == "HEAD")
    return std::string("a HEAD file makes its directory a git repository (with objects/ and refs/ beside it, or a "
                       "commondir leading to them), whose config and hooks git then runs");
  if (name == "commondir") return std::string(kRedirectWhy);
  if (name == "gitdir") return std::string(kGitdirWhy);
  if (name == "config.worktree") return std::string(kConfigWhy);
  return std::nullopt;
}

bool Walker::judged(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return true;
  return !judged_.insert({st.st_dev, st.st_ino}).second;
}

// A `.git` entry in PATH: a directory is a repository's control directory; a file (gitdir: ...)
// or a symlink sends git elsewhere.
void Walker::dot_git(int fd, const std::string& path, int depth) {
  const std::string p = path + "/.git";
  struct stat st;
  if (!stat_at(fd, ".git", st)) return;
  if (S_ISDIR(st.st_mode)) {
    sys::UniqueFd d(open_dir(fd, ".git"));
    if (d) git_dir(d.get(), p, depth);
    return;
  }
  if (changed(st)) {
    flag(fd, ".git", p,
         S_ISLNK(st.st_mode) ? "a .git symlink makes git use the repository it points to, with its config and hooks"
                             : "a .git file (gitdir: ...) makes git use the repository it names, with its config and hooks");
    return;
  }
  // There before the run: git follows it, so what it leads to is judged as a git directory.
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = readlinkat(fd, ".git", target, sizeof target - 1);
    if (n > 0) follow(path, std::string(target, static_cast<std::size_t>(n)), depth);
  } else if (auto text = read_file(fd, ".git", kMaxGitfile)) {
    if (auto target = git::gitfile_target(*text)) follow(path, *target, depth);
  }
}

// The directory TARGET names (relative to PATH, the directory of the file that names it, as git
// takes it), judged as a git directory when it lies in a writable area: a directory the run
// could not write holds nothing the run chose.
void Walker::follow(const std::string& path, const std::string& target, int depth) {
  if (target.empty() || depth >= kMaxDepth) return;
  std::string at;
  bool writable = false;
  sys::UniqueFd d = open_named(path, target, at, writable);
  if (d && writable) git_dir(d.get(), at, depth + 1);
}

sys::UniqueFd Walker::open_named(const std::string& from, const std::string& target, std::string& shown,
                                 bool& writable) const {
  const std::string named = target.front() == '/' ? target : from + "/" + target;
  sys::UniqueFd d(open(host_path(named).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
  if (!d) return d;
  const std::string real = fd_path(d.get());
  writable = !real.empty() &&
             std::any_of(roots_.begin(), roots_.end(), [&](const std::string& r) { return path::is_at_or_under(real, r); });
  shown = real.empty() ? named : real;
  if (area_ && area_->lower && path::is_at_or_under(real, area_->path))
    shown = area_->shown + real.substr(area_->path.size());
  return d;
}


// A directory git may take for a git directory (a `.git`, a bare repository, a submodule's or a
// linked worktree's git directory, one a `.git` file names).
void Walker::git_dir(int fd, const std::string& path, int depth) {
  if (judged(fd)) return;
  struct stat st;

  // Where its common directory is, read before anything here is moved aside.
  bool commondir_changed = false;
  sys::UniqueFd common_fd;
  std::string common_path = path;
  bool common_writable = false;
  if (stat_at(fd, "commondir", st)) {
    commondir_changed = changed(st);
    auto text = git::commondir_text(fd);
    if (text && !text->empty()) common_fd = open_named(path, *text, common_path, common_writable);
    struct stat self, other;
    if (common_fd && fstat(fd, &self) == 0 && fstat(common_fd.get(), &other) == 0 && self.st_dev == other.st_dev &&
        self.st_ino == other.st_ino) {
      common_fd = sys::UniqueFd();  // "." or a way back to itself: its own common directory
      common_path = path;
    }
  }
  const int common = common_fd ? common_fd.get() : fd;

  // Whether the repository was there before the run: its config, in the common directory, was.
  bool config_predates = false;
  if (saved(common_path + "/config") != nullptr) {
    config_predates = true;  // the area's own repository's: put back below if the run changed it
  } else if (stat_at(common, "config", st)) {
    config_predates = S_ISREG(st.st_mode) && !changed(st);
  } else {
    config_predates = exists_in_view(common, common_path, "config");  // an overlay's lower layer
  }

  // HEAD: the branch pointer of a repository that was there, or a repository the run made.
  if (stat_at(fd, "HEAD", st) && changed(st) && git::valid_head(fd) &&
      exists_in_view(common, common_path, "objects") && exists_in_view(common, common_path, "refs") &&
      (commondir_changed || !config_predates))
    flag(fd, "HEAD", path + "/HEAD", kHeadWhy);

  for (const char* name : {"commondir", "config.worktree", "gitdir"}) judge_control_file(fd, name, path, *git_name(name));

  // A rebase in progress whose instructions the run wrote with commands in them.
  if (stat_at(fd, "rebase-merge", st) && S_ISDIR(st.st_mode)) {
    sys::UniqueFd rebase(open_dir(fd, "rebase-merge"));
    struct stat todo;
    if (rebase && stat_at(rebase.get(), "git-rebase-todo", todo) && changed(todo)) {
      auto text = read_file(rebase.get(), "git-rebase-todo", 16u << 20);
      if (!text || git::todo_runs_commands(*text))
        flag(rebase.get(), "git-rebase-todo", path + "/rebase-merge/git-rebase-todo", kTodoWhy);
    }
  }

  if (common_fd) {
    if (common_writable && !judged(common_fd.get())) common_dir(common_fd.get(), common_path, depth, nullptr);
  } else {
    common_dir(fd, path, depth, "self");
  }
}

// A common directory: what git reads from it whichever git directory leads there. WHO is null
// when it was reached through a commondir (its own config.worktree is then checked too).
void Walker::common_dir(int fd, const std::string& path, int depth, const char* who) {
  struct stat st;
  judge_control_file(fd, "config", path, kConfigWhy);
  if (who == nullptr) judge_control_file(fd, "config.worktree", path, kConfigWhy);

  if (stat_at(fd, "objects", st)) {
    const char* why = "makes git read objects from another repository";
    if (!S_ISDIR(st.st_mode)) {
      if (changed(st)) flag(fd, "objects", path + "/objects", why);
    } else if (sys::UniqueFd objects{open_dir(fd, "objects")}) {
      struct stat info;
      if (stat_at(objects.get(), "info", info)) {
        if (!S_ISDIR(info.st_mode)) {
          if (changed(info)) flag(objects.get(), "info", path + "/objects/info", why);
        } else if (sys::UniqueFd info_fd{open_dir(objects.get(), "info")}) {
          struct stat alt;
          if (stat_at(info_fd.get(), "alternates", alt) && changed(alt))
            flag(info_fd.get(), "alternates", path + "/objects/info/alternates", why);
        }
      }
    }
  }
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

void Walker::nested_git_dirs(int fd, const std::string& path, int depth) {
  for_each_entry(fd, [&](const char* name, unsigned char type) {
    struct stat st;
    if (type != DT_DIR && type != DT_UNKNOWN) {
      if (stat_at(fd, name, st) && changed(st)) flag(fd, name, path + "/" + name, kRedirectWhy);
      return;
    }
    sys::UniqueFd d(open_dir(fd, name));
    if (!d) {
      if (stat_at(fd, name, st) && changed(st)) flag(fd, name, path + "/" + name, kRedirectWhy);
      return;
    }
    const bool is_git_dir = stat_at(d.get(), "HEAD", st) || stat_at(d.get(), "config", st) ||
                            stat_at(d.get(), "commondir", st) || stat_at(d.get(), "gitdir", st);
    if (is_git_dir) {
      git_dir(d.get(), path + "/" + name, depth);
    } else if (depth < kMaxDepth) {
      nested_git_dirs(d.get(), path + "/" + name, depth + 1);
    }
  });
}

void Walker::judge_control_file(int fd, const char* name, const std::string& path, const std::string& why) {
  const std::string p = path + "/" + name;
  const SavedFile* was = saved(p);
  struct stat st;
  if (!stat_at(fd, name, st)) {
    if (was != nullptr && record_ == nullptr) put_back(fd, name, p, *was, why);  // removed by the run
    return;
  }
  if (!changed(st)) return;
  if (was != nullptr) put_back(fd, name, p, *was, why);
  else flag(fd, name, p, why);
}

const SavedFile* Walker::saved(const std::string& path) const {
  if (area_ == nullptr || area_->git_saved.empty() || !own_intact_) return nullptr;
  const std::string prefix = (area_->shown == "/" ? std::string() : area_->shown) + "/.git/";
  if (path.compare(0, prefix.size(), prefix) != 0) return nullptr;
  auto it = area_->git_saved.find(path.substr(prefix.size()));
  return it == area_->git_saved.end() ? nullptr : &it->second;
}

// One of the user's repository's own files, changed or removed by the run: the run's version
// kept beside it, the one from before the run put back.
void Walker::put_back(int fd, const char* name, const std::string& path, const SavedFile& was, const std::string& why) {
  if (record_ != nullptr || (trusted_ && trusted_(path))) return;
  std::string action;
  struct stat st;
  if (stat_at(fd, name, st)) {
    const std::string aside = rename_aside(fd, name, "paddock-rejected");
    if (aside.empty()) {
      out_.push_back({path, why, std::string("could not move the run's version aside (") + std::strerror(errno) +
                                     "): fix it before you run git there"});
      return;
    }
    action = "the run's version kept as " + path.substr(0, path.size() - std::strlen(name)) + aside + "; ";
  } else {
    action = "removed by the run; ";
  }
  if (auto wr = sys::write_file_at(fd, name, was.bytes, was.mode); wr)
    action += "the file from before the run put back";
  else
    action += "could not put the file from before the run back (" + wr.error().message + ")";
  out_.push_back({path, why, action});
}

}  // namespace paddock::gate
