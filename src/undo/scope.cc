#include "undo/scope.h"

#include <sys/stat.h>

#include <algorithm>

#include "policy/path_util.h"

namespace paddock::undo {

Scope scope_from_policy(const Policy& policy, const std::vector<std::string>& state_dirs,
                        std::vector<Exclude> excludes) {
  Scope s;
  s.home = policy.home;
  std::vector<std::string> roots;
  for (const PathRule& r : policy.paths) {
    if (!grants(r.access, Access::Write) || !r.symlink_target.empty()) continue;
    if (r.origin.kind == Origin::Kind::BuiltIn) continue;  // paddock's own areas, not the user's files
    if (r.path == "/") {
      s.not_captured.push_back("/: the whole filesystem is not captured");
      continue;
    }
    if (std::any_of(state_dirs.begin(), state_dirs.end(),
                    [&](const std::string& d) { return path::is_at_or_under(r.path, d); }))
      continue;
    struct stat st;
    if (::lstat(r.path.c_str(), &st) != 0) continue;
    if (!S_ISDIR(st.st_mode)) {
      s.not_captured.push_back(r.path + ": a single file grant is not captured");
      continue;
    }
    roots.push_back(r.path);
  }
  std::sort(roots.begin(), roots.end());
  for (const auto& r : roots) {
    const bool nested = std::any_of(s.roots.begin(), s.roots.end(),
                                    [&](const std::string& o) { return path::is_at_or_under(r, o); });
    if (!nested) s.roots.push_back(r);
  }
  s.excludes = std::move(excludes);
  for (const auto& root : s.roots) {
    for (const DeniedPath& d : policy.denied) {
      if (path::is_strictly_under(d.path, root)) {
        s.excludes.push_back({Exclude::Kind::Path, d.path, "hidden from the sandbox: " + d.reason});
      }
    }
    for (const std::string& d : state_dirs) {
      if (path::is_strictly_under(d, root)) s.excludes.push_back({Exclude::Kind::Path, d, "paddock's own state"});
    }
  }
  return s;
}

}  // namespace paddock::undo
