#include "host/roots.h"

#include "host/paths.h"
#include "policy/path_util.h"

namespace paddock::host {

std::vector<ResolvedRoot> resolve_roots(const UserEntry& entry, const UserInfo& user, const FsView& fs,
                                        const std::vector<UserInfo>& login_users) {
  std::vector<ResolvedRoot> out;
  std::string real_home;
  if (auto h = fs.canonical(user.home)) real_home = *h;
  for (const RootSpec& r : entry.roots) {
    ResolvedRoot rr{r.given, r.where, "", ""};
    const bool tilde = !r.given.empty() && r.given[0] == '~';
    std::string expanded = tilde ? user.home + r.given.substr(1) : r.given;
    auto c = fs.canonical(expanded);
    if (!c) {
      rr.note = "does not exist";
    } else if (fs.kind(*c) != FsView::Kind::Dir) {
      rr.note = "is not a directory";
    } else if (tilde && (real_home.empty() || !path::is_at_or_under(*c, real_home))) {
      rr.note = "resolves to " + *c + ", outside the user's home";
    } else if (!r.broad && *c == "/") {
      rr.note = "resolves to /, the whole file system (allow_broad is not set)";
    } else {
      rr.path = *c;
      if (!r.broad) {
        for (const UserInfo& u : login_users) {
          auto h = fs.canonical(u.home);
          if (!h || *h == "/") continue;
          if (path::is_at_or_under(*h, *c)) {
            rr.note = "resolves to " + *c + ", which " + (*h == *c ? "is" : "contains") + " the whole home of " +
                      u.name + " (allow_broad is not set)";
            rr.path.clear();
            break;
          }
        }
      }
    }
    out.push_back(std::move(rr));
  }
  return out;
}

std::string describe_roots(const std::vector<ResolvedRoot>& roots) {
  std::string out;
  for (const ResolvedRoot& r : roots) {
    out += "  " + r.given;
    if (!r.path.empty() && r.path != r.given) out += "  (" + r.path + ")";
    if (!r.note.empty()) out += "  [unusable: " + r.note + "]";
    out += "\n";
  }
  return out;
}

Result<ResolvedRoot> check_cwd(const std::string& cwd, const std::vector<ResolvedRoot>& roots,
                               const std::string& user, const FsView& fs) {
  auto refusal = [&](const std::string& why) {
    return make_error(why + "\nthe project roots of " + user + " are:\n" + describe_roots(roots) +
                          "(paddock host explain shows them with the config they come from)",
                      {}, "cd into a project under one of them, or ask an administrator to add a root");
  };
  if (!is_normal_absolute(cwd)) return refusal("the current directory \"" + cwd + "\" has no usable path");
  auto c = fs.canonical(cwd);
  if (!c || *c != cwd) return refusal("the current directory " + cwd + " does not resolve to itself");
  const ResolvedRoot* best = nullptr;
  for (const ResolvedRoot& r : roots) {
    if (r.path.empty() || !path::is_at_or_under(cwd, r.path)) continue;
    if (best == nullptr || r.path.size() > best->path.size()) best = &r;
  }
  if (best == nullptr) return refusal(cwd + " is not under a project root of " + user);
  return *best;
}

}  // namespace paddock::host
