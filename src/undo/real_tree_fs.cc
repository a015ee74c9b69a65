// The real tree: every operation relative to directory descriptors opened one component at a
// time with O_NOFOLLOW, below a root opened without following any symlink.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <random>

#include "sys/anchored_dir.h"
#include "undo/copy_file.h"
#include "undo/tree_fs.h"
#include "undo/tree_listing.h"
#include "sys/syscalls.h"

namespace paddock::undo {

std::string join_rel(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

std::string parent_rel(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool path_less(const std::string& a, const std::string& b) {
  // Component-wise: '/' sorts before every other byte.
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) continue;
    if (a[i] == '/') return true;
    if (b[i] == '/') return false;
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

bool rel_at_or_under(const std::string& path, const std::string& root) {
  if (root.empty()) return true;
  if (path.size() < root.size() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

namespace {

std::string temp_name() {
  static std::mt19937_64 rng{std::random_device{}()};
  char buf[48];
  std::snprintf(buf, sizeof(buf), ".paddock-undo-%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

class RealTreeFs final : public TreeFs {
 public:
  RealTreeFs(std::string root, sys::UniqueFd fd) : root_(std::move(root)), root_fd_(std::move(fd)) {}

  Result<std::vector<TreeChild>> list(const std::string& dir) override {
    if (auto it = ahead_.find(dir); it != ahead_.end()) {
      auto listing = std::move(it->second);
      ahead_.erase(it);
      return listing;
    }
    auto fd = dir_fd(dir);
    if (!fd) return std::move(fd).take_error();
    // getdents64 on the kept descriptor itself (rewound): no second open, no DIR buffer.
    if (::lseek(*fd, 0, SEEK_SET) != 0) return errno_error("cannot read", errno, where(dir));
    return read_children(*fd, where(dir));
  }

  void read_ahead(const ListingSkip& skip) override {
    ahead_.clear();
    if (const unsigned threads = listing_threads(); threads > 1)
      ahead_ = list_tree(root_fd_.get(), root_, skip, kReadAheadDepth, threads, kReadAheadEntries);
  }
  void end_read_ahead() override { ahead_.clear(); }

  Result<FileStat> stat(const std::string& path) override {
    if (path.empty()) {
      struct stat st;
      if (::fstat(root_fd_.get(), &st) != 0) return errno_error("cannot stat", errno, root_);
      return file_stat_from(st);
    }
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    struct stat st;
    if (::fstatat(*fd, base(path), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno_error("cannot stat", errno, where(path));
    return file_stat_from(st);
  }

  Result<sys::UniqueFd> open_file(const std::string& path) override {
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    sys::UniqueFd f(::openat(*fd, base(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!f) return errno_error("cannot open", errno, where(path));
    struct stat st;
    if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) return make_error("not a regular file", where(path));
    return f;
  }

  Result<std::string> read_link(const std::string& path) override {
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    std::string buf(256, '\0');
    for (;;) {
      ssize_t n = ::readlinkat(*fd, base(path), buf.data(), buf.size());
      if (n < 0) return errno_error("cannot read the symlink", errno, where(path));
      if (static_cast<std::size_t>(n) < buf.size()) {
        buf.resize(n);
        return buf;
      }
      buf.resize(buf.size() * 2);
    }
  }

  Result<void> make_dir(const std::string& path, const FileStat& meta) override {
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    if (::mkdirat(*fd, base(path), 0700) != 0) return errno_error("cannot create the directory", errno, where(path));
    if (::geteuid() == 0 && ::fchownat(*fd, base(path), meta.uid, meta.gid, AT_SYMLINK_NOFOLLOW) != 0)
      return errno_error("chown", errno, where(path));
    return chmod_nofollow(*fd, base(path), meta.mode);
  }

  Result<void> write_file(const std::string& path, int content_fd, const FileStat& meta) override {
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    const std::string tmp = temp_name();
    sys::UniqueFd out(::openat(*fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!out) return errno_error("cannot create a file beside", errno, where(path));
    auto fail = [&](Error e) -> Result<void> {
      ::unlinkat(*fd, tmp.c_str(), 0);
      return e;
    };
    if (auto c = copy_file_content(content_fd, out.get()); !c) {
      Error e = std::move(c).take_error();
      e.where = where(path);
      return fail(std::move(e));
    }
    if (::geteuid() == 0 && ::fchown(out.get(), meta.uid, meta.gid) != 0) return fail(errno_error("chown", errno, where(path)));
    if (::fchmod(out.get(), meta.mode) != 0) return fail(errno_error("chmod", errno, where(path)));
    struct timespec times[2] = {{0, UTIME_OMIT}, {meta.mtime_ns / 1000000000, meta.mtime_ns % 1000000000}};
    if (::futimens(out.get(), times) != 0) return fail(errno_error("cannot set the time", errno, where(path)));
    if (::renameat(*fd, tmp.c_str(), *fd, base(path)) != 0) return fail(errno_error("cannot rename into place", errno, where(path)));
    return {};
  }

  Result<void> make_symlink(const std::string& path, const std::string& target) override {
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    const std::string tmp = temp_name();
    if (::symlinkat(target.c_str(), *fd, tmp.c_str()) != 0) return errno_error("cannot create the symlink", errno, where(path));
    if (::renameat(*fd, tmp.c_str(), *fd, base(path)) != 0) {
      int e = errno;
      ::unlinkat(*fd, tmp.c_str(), 0);
      return errno_error("cannot rename into place", e, where(path));
    }
    return {};
  }

  Result<void> remove(const std::string& path) override {
    if (path.empty()) return make_error("refusing to remove the root", root_);
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    forget(path);
    if (::unlinkat(*fd, base(path), 0) == 0) return {};
    if (errno != EISDIR && errno != EPERM) return errno_error("cannot remove", errno, where(path));
    if (::unlinkat(*fd, base(path), AT_REMOVEDIR) != 0) return errno_error("cannot remove", errno, where(path));
    return {};
  }

  Result<void> set_mode(const std::string& path, mode_t mode) override {
    if (path.empty()) {
      if (::fchmod(root_fd_.get(), mode) != 0) return errno_error("chmod", errno, root_);
      return {};
    }
    auto fd = dir_fd(parent_rel(path));
    if (!fd) return std::move(fd).take_error();
    return chmod_nofollow(*fd, base(path), mode);
  }

  Result<void> sync() override {
    if (::syncfs(root_fd_.get()) != 0) return errno_error("syncfs", errno, root_);
    return {};
  }

  std::int64_t now_ns() override {
    struct timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  // The kernel stamps files with the coarse clock (one tick: 1 to 10 ms); twice that, to be safe.
  std::int64_t timestamp_granularity_ns() override { return 20'000'000; }

 private:
  std::string where(const std::string& rel) const { return rel.empty() ? root_ : root_ + "/" + rel; }
  static const char* base(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path.c_str() : path.c_str() + slash + 1;
  }

  // chmod without following a final symlink (fchmodat(AT_SYMLINK_NOFOLLOW) refuses links).
  Result<void> chmod_nofollow(int dirfd, const char* name, mode_t mode) {
    if (::fchmodat(dirfd, name, mode, AT_SYMLINK_NOFOLLOW) != 0) return errno_error("chmod", errno, name);
    return {};
  }

  // The directory DIR, opened one component at a time with O_NOFOLLOW. The descriptors of the
  // last directory's ancestors are kept, up to kKeptDirs of them: a depth-first walk opens each
  // directory once. Deeper (a tree of thousands of nested directories), the rest of the way is
  // opened from the deepest kept one, each descriptor closed when the next is open: a tree of any
  // depth is read and restored within a few hundred descriptors.
  static constexpr std::size_t kKeptDirs = 256;
  Result<int> dir_fd(const std::string& dir) {
    if (dir.empty()) return root_fd_.get();
    if (deep_ && deep_path_ == dir) return deep_.get();
    while (!stack_.empty() && !rel_at_or_under(dir, stack_.back().first)) stack_.pop_back();
    if (!stack_.empty() && stack_.back().first == dir) return stack_.back().second.get();
    std::size_t pos = stack_.empty() ? 0 : stack_.back().first.size() + 1;
    int at = stack_.empty() ? root_fd_.get() : stack_.back().second.get();
    sys::UniqueFd walking;  // past the kept ones
    while (pos <= dir.size()) {
      std::size_t end = dir.find('/', pos);
      if (end == std::string::npos) end = dir.size();
      const std::string comp = dir.substr(pos, end - pos);
      const std::string sofar = dir.substr(0, end);
      sys::UniqueFd fd(::openat(at, comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!fd) {
        int e = errno;
        // A symlink where a directory should be: say so (ELOOP, or ENOTDIR with O_DIRECTORY).
        return errno_error(e == ELOOP || e == ENOTDIR ? "not a directory (a symlink or a file is there)"
                                                      : "cannot open the directory",
                           e, where(sofar));
      }
      if (stack_.size() < kKeptDirs) {
        stack_.emplace_back(sofar, std::move(fd));
        at = stack_.back().second.get();
      } else {
        walking = std::move(fd);
        at = walking.get();
      }
      pos = end + 1;
    }
    if (!walking) return at;
    deep_ = std::move(walking);
    deep_path_ = dir;
    return deep_.get();
  }

  // A directory removed (or replaced) must not be reached through a kept descriptor.
  void forget(const std::string& path) {
    while (!stack_.empty() && rel_at_or_under(stack_.back().first, path)) stack_.pop_back();
    // Deeper entries can only sit above the ones popped; an entry at PATH is always the last.
    if (deep_ && rel_at_or_under(deep_path_, path)) deep_.reset();
  }

  // How deep a read-ahead goes (tree_listing.h: about this many descriptors per thread).
  static constexpr int kReadAheadDepth = 64;
  // How many entries it holds at most (about 100 bytes each beside the walk's manifest).
  static constexpr std::size_t kReadAheadEntries = 1'000'000;
  std::string root_;
  sys::UniqueFd root_fd_;
  Listings ahead_;  // listings read ahead and not yet asked for
  std::vector<std::pair<std::string, sys::UniqueFd>> stack_;
  sys::UniqueFd deep_;  // the last directory opened past the kept ones (dir_fd's answer until its next call)
  std::string deep_path_;
};

}  // namespace

Result<std::unique_ptr<TreeFs>> open_real_tree(const std::string& root) {
  auto fd = sys::open_dir_no_symlinks(root);
  if (!fd) return std::move(fd).take_error();
  return std::unique_ptr<TreeFs>(new RealTreeFs(root, std::move(*fd)));
}

}  // namespace paddock::undo
