// The one walk of the writable areas after a door wrote (internal to src/gate): every directory is
// listed once (getdents64 on one descriptor, no stat per entry), and each entry's NAME decides
// whether anything is looked at more closely; only what matches is stat'ed. Three sets of rules
// share it, each in its own file:
//   git_watch.cc         git's discovery rules (git_rules.h): `.git` entries, every directory
//                        with a HEAD, the common directory a `commondir` leads to, and the control
//                        files of each git directory found that way;
//   walker.cc            the protected names (src/policy/protected_paths.cc) at any depth;
//   toolchain_watch.cc   toolchains' start-up hooks (toolchain.h): Python's site directories
//                        and virtual environments.
// What changed since the baseline is moved aside (or, for the project's own .git/config, put back)
// and listed.
#pragma once

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstring>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gate/dir_index.h"
#include "gate/quarantine.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"
#include "sys/syscalls.h"

namespace paddock::gate {

// A file paddock read before the run, to put back if the run changes it.
struct SavedFile {
  std::string bytes;
  mode_t mode = 0644;
};

// A tree the walk visits.
struct WalkArea {
  std::string path;   // the host directory walked (an overlay's upper directory)
  std::string shown;  // its path as the user knows it: PATH, or for an overlay the workspace's
  std::shared_ptr<const sys::UniqueFd> fd;
  // An overlay's read-only lower layer (what the workspace shows where the upper has nothing):
  // consulted where a rule asks whether something exists. Null for a plain directory.
  std::shared_ptr<const sys::UniqueFd> lower;
  // PATH/.git as it was before the run, when it was a directory, and the files in it that tie
  // the user's repository together, as they were (relative to it: config, config.worktree,
  // worktrees/ID/{commondir,gitdir,config.worktree}, modules/NAME/{config,config.worktree}): a run
  // that changes or removes one (the fallback cannot keep them read-only) gets it put back,
  // where moving it aside would leave the repository, a linked worktree or a submodule broken.
  bool had_git_dir = false;
  dev_t git_dev = 0;
  ino_t git_ino = 0;
  std::map<std::string, SavedFile> git_saved;
};

using TrustedFn = std::function<bool(const std::string& path)>;

class Walker {
 public:
  // After the run: what changed against BASE is moved aside and added to OUT. COVERED: paths
  // other checks look at (the policy's protected paths), left to them. ROOTS: every area's host
  // path, to tell whether a directory a `commondir` or `.git` file names is one a run could write.
  Walker(const Baseline& base, std::size_t budget, const TrustedFn& trusted, const std::set<std::string>& covered,
         std::vector<std::string> roots, std::vector<LeftBehind>& out);
  // Before the run: the control files of AREA's own `.git` recorded in RECORD; nothing moved.
  static void record_git_dir(Baseline& record, const WalkArea& area);

  // Walks AREA. With INDEX, a directory that has not changed since the index listed it is not
  // read again (dir_index.h), and what this walk reads is put into INDEX.
  void walk(const WalkArea& area, DirIndex* index = nullptr);
  bool exhausted() const { return exhausted_; }
  bool too_deep() const { return too_deep_; }
  // Directories read, and directories whose listing came from the index.
  std::size_t listed() const { return listed_; }
  std::size_t from_index() const { return from_index_; }
  std::size_t budget_left() const { return budget_; }

  // Which of the walk's names a directory listing keeps (the index is only used with the same).
  static std::uint64_t rules_fingerprint();

  static constexpr int kMaxDepth = 256;

 private:
  struct Listed {
    std::string name;
    unsigned char type;
  };
  // Any directory, open on FD: its entries by name (read, or from the index).
  void tree(int fd, const std::string& path, int depth, bool site_dir);
  // The directory REL (a path below the directory open on AT, each directory on the way one the
  // index found unchanged), NAME in the directory at PARENT (as shown): stat'ed, and opened only
  // when it changed or holds a name a rule looks at.
  void enter(int at, const std::string& rel, const std::string& parent, const std::string& name, int depth,
             bool site_dir);
  // FD's listing L judged by the rules, then its subdirectories entered.
  void visit(int fd, const std::string& path, int depth, bool site_dir, const Listing& l, const std::vector<Listed>& all);
  // FD's entries read into L (and, for a site directory, ALL); false when the listing is not whole.
  bool list(int fd, Listing& l, std::vector<Listed>* all);
  bool spend(std::size_t n);

  // git (git_watch.cc)
  void dot_git(int fd, const std::string& path, int depth);
  void git_dir(int fd, const std::string& path, int depth);
  void common_dir(int fd, const std::string& path, int depth, const char* who);
  void nested_git_dirs(int fd, const std::string& path, int depth);
  void follow(const std::string& path, const std::string& target, int depth);
  // Opens the directory TARGET names (relative to FROM, as git takes it), following links as git
  // does; SHOWN: where it is as the user knows it; WRITABLE: whether it lies in a walked area.
  sys::UniqueFd open_named(const std::string& from, const std::string& target, std::string& shown, bool& writable) const;
  bool judged(int fd);
  // NAME in FD (at PATH) changed or removed by the run: put back as it was when the area's own
  // .git held it before the run, else (changed) moved aside.
  void judge_control_file(int fd, const char* name, const std::string& path, const std::string& why);
  const SavedFile* saved(const std::string& path) const;
  void put_back(int fd, const char* name, const std::string& path, const SavedFile& saved, const std::string& why);

  // protected names at any depth (walker.cc)
  void protected_entry(int fd, const std::string& path, const std::string& name);
  void changed_below(int fd, const std::string& path, const std::string& why, int depth);

  // toolchains (toolchain_watch.cc)
  void toolchain_entry(int fd, const std::string& path, const std::string& name);
  void site_packages(int fd, const std::string& path, const std::vector<Listed>& entries);
  void python_env(int fd, const std::string& path);

  // Shared.
  // F(name, d_type) for each entry but "." and ".."; false when the end was not reached (a read
  // error, or the entry budget spent).
  template <typename F>
  bool for_each_entry(int fd, F&& f);
  static bool stat_at(int fd, const char* name, struct stat& st);
  static int open_dir(int fd, const char* name);
  bool changed(const struct stat& st) const;
  // Whether NAME exists in the directory at PATH as the workspace shows it (an overlay: the upper
  // directory FD, else the lower layer).
  bool exists_in_view(int fd, const std::string& path, const char* name) const;
  // The host path PATH (as shown) is at, for resolving a name git follows; "" when unknown.
  std::string host_path(const std::string& shown) const;
  // Moves NAME (in FD) aside and says so; USED_BY names what would use it.
  void flag(int fd, const char* name, std::string path, const std::string& why, const char* used_by = kGitUser);
  static constexpr const char* kGitUser = "you run git there";

  const Baseline& base_;
  Baseline* record_ = nullptr;
  std::size_t budget_;
  TrustedFn trusted_;
  const std::set<std::string>* covered_ = nullptr;
  std::vector<std::string> roots_;
  std::vector<LeftBehind>& out_;
  const WalkArea* area_ = nullptr;
  bool own_intact_ = false;  // the area's .git is the directory that was there before the run
  std::set<std::pair<dev_t, ino_t>> judged_;  // git directories already judged
  bool exhausted_ = false;
  bool too_deep_ = false;
  DirIndex* index_ = nullptr;
  std::size_t listed_ = 0, from_index_ = 0;

  Walker(Baseline& record, std::vector<LeftBehind>& unused);
};

template <typename F>
inline bool Walker::for_each_entry(int fd, F&& f) {
  // getdents64 straight on FD (no DIR: no dup, fstat and close per directory), from its start:
  // the area's descriptor may have been read before.
  struct linux_dirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
  };
  if (lseek(fd, 0, SEEK_SET) != 0) return false;
  alignas(8) char buf[32768];
  for (;;) {
    long n = sys::getdents64(fd, buf, sizeof buf);
    if (n <= 0) return n == 0;
    for (long off = 0; off < n;) {
      auto* e = reinterpret_cast<linux_dirent64*>(buf + off);
      off += e->d_reclen;
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      if (budget_ == 0) {
        exhausted_ = true;
        return false;
      }
      --budget_;
      f(static_cast<const char*>(e->d_name), e->d_type);
    }
  }
}

}  // namespace paddock::gate
