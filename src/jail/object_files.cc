#include "jail/object_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {

bool all_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return !s.empty();
}

bool loose_name(std::string_view n) { return (n.size() == 38 || n.size() == 62) && all_hex(n); }

std::string pack_base(std::string_view n, std::string_view ext) {
  if (n.size() <= 5 + ext.size() || n.substr(0, 5) != "pack-" || n.substr(n.size() - ext.size()) != ext) return "";
  std::string_view hex = n.substr(5, n.size() - 5 - ext.size());
  return (hex.size() == 40 || hex.size() == 64) && all_hex(hex) ? std::string(n.substr(0, n.size() - ext.size())) : "";
}

std::vector<std::string> entries(int dirfd) {
  std::vector<std::string> out;
  int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = fdopendir(fd);
  if (!d) {
    ::close(fd);
    return out;
  }
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool copy_regular(int from, const std::string& name, int to, const std::string& to_name) {
  int in = openat(from, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) return false;
  sys::UniqueFd src(in);
  struct stat st;
  if (fstat(src.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  int out = openat(to, to_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) return false;
  sys::UniqueFd dst(out);
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(src.get(), buf, sizeof(buf))) > 0)
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(dst.get(), buf + off, static_cast<std::size_t>(n - off));
      if (w < 0) return false;
      off += w;
    }
  return n == 0;
}

std::optional<std::string> read_all(int dirfd, const std::string& name) {
  int fd = openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  sys::UniqueFd f(fd);
  std::string data;
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(f.get(), buf, sizeof(buf))) > 0) data.append(buf, static_cast<std::size_t>(n));
  if (n < 0) return std::nullopt;
  return data;
}

Result<sys::UniqueFd> private_dir(const std::string& path) {
  auto parts = sys::split_file_path(path);
  if (!parts) return make_error(parts.error().message, path);
  auto parent = sys::open_dir_no_symlinks(parts->first);
  if (!parent) return std::move(parent).take_error();
  if (mkdirat(parent->get(), parts->second.c_str(), 0700) != 0 && errno != EEXIST)
    return errno_error("cannot create", errno, path);
  auto d = sys::open_dir_no_symlinks(path);
  if (!d) return std::move(d).take_error();
  struct stat st;
  if (fstat(d->get(), &st) != 0) return errno_error("cannot stat", errno, path);
  if (st.st_uid != geteuid())
    return make_error("not a directory of yours (owned by uid " + std::to_string(st.st_uid) + ")", path,
                      "remove it; paddock makes it again");
  // Its parents are the caller's and private too; a looser mode (a run can chmod the private
  // object directory it is given) is taken back.
  if ((st.st_mode & 077) != 0 && fchmod(d->get(), 0700) != 0) return errno_error("cannot chmod", errno, path);
  return d;
}

Result<void> keep_file(int dirfd, const std::string& name, std::string_view content, mode_t mode) {
  int fd = openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    sys::UniqueFd f(fd);
    struct stat st;
    if (fstat(f.get(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == mode &&
        static_cast<std::size_t>(st.st_size) == content.size()) {
      std::string data(content.size(), '\0');
      if (content.empty() || read(f.get(), data.data(), data.size()) == static_cast<ssize_t>(data.size())) {
        if (data == content) return {};
      }
    }
  }
  return sys::write_file_at(dirfd, name, content, mode);
}

}  // namespace paddock::jail
