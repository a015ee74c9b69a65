#include "mcp/workspace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace paddock::mcp {
namespace {

// Empties the directory open at `dfd` (which is closed), depth first, never following symlinks.
void empty_dir(int dfd, int depth) {
  DIR* d = ::fdopendir(dfd);
  if (!d) {
    ::close(dfd);
    return;
  }
  std::vector<std::pair<std::string, bool>> entries;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    entries.emplace_back(e->d_name, e->d_type == DT_DIR);
  }
  int fd = ::dirfd(d);
  for (const auto& [name, is_dir_hint] : entries) {
    struct stat st;
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode) && depth < 4096) {
      ::fchmodat(fd, name.c_str(), 0700, 0);
      int sub = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) empty_dir(sub, depth + 1);
      ::unlinkat(fd, name.c_str(), AT_REMOVEDIR);
    } else {
      ::unlinkat(fd, name.c_str(), 0);
    }
  }
  ::closedir(d);
}

}  // namespace

void remove_tree(const std::string& path) {
  ::chmod(path.c_str(), 0700);
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) empty_dir(fd, 0);
  ::rmdir(path.c_str());
}

Result<Workspace> Workspace::create(const std::string& root) {
  std::string tmpl = root + "/ws.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return errno_error("cannot create a workspace", errno, root);
  Workspace w;
  w.path_ = buf.data();
  return w;
}

Workspace::~Workspace() { remove(); }

Workspace& Workspace::operator=(Workspace&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

void Workspace::remove() {
  if (path_.empty()) return;
  remove_tree(path_);
  path_.clear();
}

}  // namespace paddock::mcp
