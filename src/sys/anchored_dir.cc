#include "sys/anchored_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <random>
#include <vector>

#include "sys/syscalls.h"

namespace paddock::sys {
namespace {

Error through_symlink(const std::string& path, const std::string& at) {
  Error e = make_error("the directory goes through a symlink (" + at +
                           "): paddock writes only into directories reached without following one",
                       path, "give the directory's real path");
  return e;
}

// Per component, O_NOFOLLOW: for kernels without openat2.
Result<UniqueFd> walk(const std::string& path) {
  UniqueFd cur(::open(path.empty() || path[0] != '/' ? "." : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!cur) return errno_error("cannot open", errno, path);
  std::string done = path.empty() || path[0] != '/' ? "" : "/";
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    const std::string comp = path.substr(i, j - i);
    i = j + 1;
    if (comp.empty() || comp == ".") continue;
    done += (done.empty() || done.back() == '/' ? "" : "/") + comp;
    int fd = retry_eintr([&] { return ::openat(cur.get(), comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
    if (fd < 0) {
      const int e = errno;
      struct stat st;
      if ((e == ELOOP || e == ENOTDIR) && ::fstatat(cur.get(), comp.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode))
        return through_symlink(path, done);
      return errno_error("cannot open directory", e, path);
    }
    cur.reset(fd);
  }
  return cur;
}

// open_beneath without openat2: one openat(O_NOFOLLOW) per component, each checked to be on
// DIRFD's file system. Returns the fd or -1 with errno as openat2 would set it.
int walk_beneath(int dirfd, const std::string& rel, int flags) {
  struct stat top;
  if (::fstat(dirfd, &top) != 0) return -1;
  if (rel.empty() || rel[0] == '/') {
    errno = rel.empty() ? ENOENT : EXDEV;
    return -1;
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i <= rel.size();) {
    std::size_t j = rel.find('/', i);
    if (j == std::string::npos) j = rel.size();
    std::string comp = rel.substr(i, j - i);
    i = j + 1;
    if (comp == "..") {
      errno = EXDEV;  // RESOLVE_BENEATH: never above DIRFD (fail closed: not even down and up again)
      return -1;
    }
    if (!comp.empty() && comp != ".") parts.push_back(std::move(comp));
  }
  UniqueFd held;
  int cur = dirfd;
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
    int fd = retry_eintr([&] { return ::openat(cur, parts[k].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
    if (fd < 0) {
      const int e = errno;
      struct stat st;
      if (e == ENOTDIR && ::fstatat(cur, parts[k].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        errno = ELOOP;
      else
        errno = e;
      return -1;
    }
    held.reset(fd);
    cur = fd;
    struct stat st;
    if (::fstat(cur, &st) != 0) return -1;
    if (st.st_dev != top.st_dev) {
      errno = EXDEV;
      return -1;
    }
  }
  const char* last = parts.empty() ? "." : parts.back().c_str();
  int fd = retry_eintr([&] { return ::openat(cur, last, flags | O_NOFOLLOW | O_CLOEXEC); });
  if (fd < 0) return -1;
  UniqueFd out(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return -1;
  if (st.st_dev != top.st_dev) {
    errno = EXDEV;
    return -1;
  }
  return out.release();
}

}  // namespace

Result<UniqueFd> open_beneath(int dirfd, const std::string& rel, int flags, Openat2Fn openat2_fn) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  if (openat2_fn == nullptr) openat2_fn = &openat2;
  long fd = retry_eintr([&] { return openat2_fn(dirfd, rel.c_str(), &how, sizeof(how)); });
  if (fd < 0 && (errno == ENOSYS || errno == E2BIG || errno == EPERM)) {  // no openat2 (or a filter refuses it)
    fd = walk_beneath(dirfd, rel, flags);
  }
  if (fd < 0) return errno_error("cannot open", errno, rel);
  return UniqueFd(static_cast<int>(fd));
}

Result<UniqueFd> open_dir_no_symlinks(const std::string& path) {
  if (path.empty()) return make_error("empty directory path");
  open_how how{};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = retry_eintr([&] { return openat2(AT_FDCWD, path.c_str(), &how, sizeof(how)); });
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
  const int e = errno;
  if (e == ENOSYS || e == E2BIG || e == EPERM) return walk(path);  // no openat2 (or a filter refuses it)
  if (e == ELOOP) {
    // Name the component: the walk finds it (and fails the same way).
    auto w = walk(path);
    if (!w) return std::move(w).take_error();
    return through_symlink(path, path);
  }
  return errno_error("cannot open directory", e, path);
}

Result<std::pair<std::string, std::string>> split_file_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return make_error("not a file name", path);
  return std::make_pair(std::move(dir), std::move(name));
}

Result<void> write_file_at(int dirfd, const std::string& name, std::string_view content, mode_t mode) {
  std::random_device rd;
  std::string tmp;
  UniqueFd fd;
  for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
    tmp = "." + name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd() & 0xffffff);
    fd.reset(retry_eintr([&] {
      return ::openat(dirfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    }));
    if (!fd && errno != EEXIST) return errno_error("cannot create", errno, name);
  }
  if (!fd) return errno_error("cannot create a temporary file", EEXIST, name);
  auto fail = [&](const char* what) {
    Error e = errno_error(what, errno, name);
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return e;
  };
  std::size_t off = 0;
  while (off < content.size()) {
    ssize_t n = retry_eintr([&] { return ::write(fd.get(), content.data() + off, content.size() - off); });
    if (n < 0) return fail("cannot write");
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return fail("cannot fsync");
  fd.reset();
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0) return fail("cannot rename into place");
  (void)::fsync(dirfd);
  return ok_result();
}

}  // namespace paddock::sys
