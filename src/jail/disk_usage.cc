// How much a jail uses: allocated blocks under its root (the size cap, `jail show`, `jail prune`).
//
// A directory its owner cannot read or enter is still counted: overlayfs leaves an overlay
// workspace's work/work with mode 0 after every mount (the kernel makes it so), and a run may
// chmod 0 a directory of its own workspace. Such a directory, when it is the caller's, is
// given owner r-x for the time it is read and its mode is put back after (a copy workspace's
// diff compares modes). Nothing is opened to another user: the jail root is 0700 and the
// directory the caller's own.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "paddock/jail.h"
#include "jail/tree.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

constexpr int kMaxDepth = 512;

std::uint64_t allocated(const struct stat& st) { return static_cast<std::uint64_t>(st.st_blocks) * 512; }

// An open directory, and the mode to put back when it was opened by giving its owner r-x.
class OpenDir {
 public:
  OpenDir(sys::UniqueFd fd, mode_t restore, bool changed) : fd_(std::move(fd)), restore_(restore), changed_(changed) {}
  OpenDir(OpenDir&&) = default;
  ~OpenDir() {
    if (changed_ && fd_.get() >= 0) (void)fchmod(fd_.get(), restore_);
  }
  int get() const { return fd_.get(); }

 private:
  sys::UniqueFd fd_;
  mode_t restore_;
  bool changed_;
};

// Opens the directory NAME (lstat ST) in DIRFD, never following a symlink.
Result<OpenDir> open_for_reading(int dirfd, const char* name, const struct stat& st, const std::string& where) {
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return OpenDir(sys::UniqueFd(fd), 0, false);
  if (errno != EACCES || st.st_uid != geteuid() || (st.st_mode & 0500) == 0500)
    return errno_error("cannot open directory", errno, where);
  // The caller's own directory that its mode keeps the caller out of: through an O_PATH
  // descriptor (no link followed), checked to be that directory, given owner r-x.
  int p = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (p < 0) return errno_error("cannot open directory", errno, where);
  sys::UniqueFd path_fd(p);
  struct stat now;
  if (fstat(p, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev || now.st_uid != geteuid())
    return make_error("the directory changed while it was measured", where);
  const mode_t mode = now.st_mode & 07777;
  const std::string proc = "/proc/self/fd/" + std::to_string(p);
  if (chmod(proc.c_str(), mode | 0500) != 0) return errno_error("cannot open directory", EACCES, where);
  fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    (void)chmod(proc.c_str(), mode);
    return errno_error("cannot open directory", err, where);
  }
  return OpenDir(sys::UniqueFd(fd), mode, true);
}

Result<void> add_dir(int dirfd, const std::string& where, dev_t dev, int depth, std::uint64_t& bytes) {
  if (depth > kMaxDepth) return make_error("tree deeper than " + std::to_string(kMaxDepth) + " levels", where);
  auto listed = list_dir(dirfd, where);
  if (!listed) return std::move(listed).take_error();
  const std::vector<std::string>& names = *listed;
  for (const std::string& n : names) {
    struct stat st;
    if (fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return errno_error("cannot stat", errno, where + "/" + n);
    }
    bytes += allocated(st);
    if (!S_ISDIR(st.st_mode) || st.st_dev != dev) continue;
    auto sub = open_for_reading(dirfd, n.c_str(), st, where + "/" + n);
    if (!sub) {
      if (sub.error().sys_errno == ENOENT) continue;  // removed meanwhile
      return std::move(sub).take_error();
    }
    if (auto a = add_dir(sub->get(), where + "/" + n, dev, depth + 1, bytes); !a) return a;
  }
  return {};
}

}  // namespace

Result<std::uint64_t> disk_usage(const std::string& dir) {
  auto fd = sys::open_dir_no_symlinks(dir);
  if (!fd) return std::move(fd).take_error();
  struct stat st;
  if (fstat(fd->get(), &st) != 0) return errno_error("cannot stat", errno, dir);
  std::uint64_t bytes = allocated(st);
  if (auto a = add_dir(fd->get(), dir, st.st_dev, 0, bytes); !a) return std::move(a).take_error();
  return bytes;
}

}  // namespace paddock::jail
