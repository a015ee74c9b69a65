#include "undo/project.h"

#include <sys/stat.h>

#include <algorithm>

#include "policy/path_util.h"

namespace paddock::undo {

Project project_of(const std::string& cwd, const std::string& home) {
  for (std::string d = cwd;; d = path::parent(d)) {
    if (d == "/" || (!home.empty() && d == home)) break;
    struct stat st;
    if (::lstat(path::join(d, ".git").c_str(), &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
      return {d, true};
  }
  return {cwd, false};
}

bool in_project(const std::vector<std::string>& roots, const Project& p) {
  return std::any_of(roots.begin(), roots.end(), [&](const std::string& r) {
    return path::is_at_or_under(p.dir, r) || (p.repository && path::is_at_or_under(r, p.dir));
  });
}

}  // namespace paddock::undo
