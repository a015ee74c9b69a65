#include "engine/discarded_writes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>


namespace paddock::engine {
namespace {

class Walk {
 public:
  Walk(const std::set<std::string>& setup, const DiscardWalkLimits& limits) : setup_(setup), limits_(limits) {
    out_.recorded = true;
  }

  // DIR_FD is consumed. INSIDE_NEW: under an entry already counted as the command's (its own
  // content is counted, not listed).
  void dir(int dir_fd, const std::string& path, bool inside_new, int depth) {
    DIR* d = fdopendir(dir_fd);
    if (d == nullptr) {
      close(dir_fd);
      out_.complete = false;
      return;
    }
    std::vector<std::string> names;
    while (struct dirent* e = readdir(d)) {
      if (std::string_view n = e->d_name; n == "." || n == "..") continue;
      names.emplace_back(e->d_name);
    }
    if (!inside_new) std::sort(names.begin(), names.end());  // "the first few" are the same each time
    for (const std::string& name : names) {
      if (++seen_ > limits_.max_entries) {
        out_.complete = false;
        break;
      }
      struct stat st;
      if (fstatat(dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        out_.complete = false;
        continue;
      }
      const std::string child = path + "/" + name;
      const bool is_dir = S_ISDIR(st.st_mode);
      const bool made_by_paddock = !inside_new && setup_.count(child) != 0;
      if (!made_by_paddock) {
        ++out_.entries;
        if (S_ISREG(st.st_mode)) out_.bytes += static_cast<std::uint64_t>(st.st_size);
        if (!inside_new) {
          ++out_.tops;
          if (out_.paths.size() < limits_.max_paths) out_.paths.push_back(child + (is_dir ? "/" : ""));
        }
      }
      if (!is_dir) continue;
      if (depth >= limits_.max_depth) {
        out_.complete = false;
        continue;
      }
      int sub = openat(dirfd(d), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        out_.complete = false;
        continue;
      }
      dir(sub, child, !made_by_paddock, depth + 1);
    }
    closedir(d);
  }

  DiscardedWrites take() { return std::move(out_); }

 private:
  const std::set<std::string>& setup_;
  DiscardWalkLimits limits_;
  std::uint64_t seen_ = 0;
  DiscardedWrites out_;
};

}  // namespace

DiscardedWrites list_discarded_writes(int root_fd, const std::string& root, const std::set<std::string>& setup,
                                      const DiscardWalkLimits& limits) {
  Walk w(setup, limits);
  int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    DiscardedWrites none;
    return none;
  }
  w.dir(fd, root == "/" ? "" : root, false, 0);
  return w.take();
}

}  // namespace paddock::engine
