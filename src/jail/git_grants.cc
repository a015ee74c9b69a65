#include "jail/git_grants.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace paddock::jail {
namespace {

std::optional<std::string> read_line(const std::string& file) {
  struct stat st;
  if (lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096) return std::nullopt;
  std::ifstream f(file);
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::optional<std::string> real(const std::string& p) {
  char buf[PATH_MAX];
  if (!realpath(p.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

std::string parent(const std::string& p) {
  auto s = p.rfind('/');
  return s == 0 ? "/" : p.substr(0, s);
}

}  // namespace

Result<std::optional<LinkedWorktree>> find_linked_worktree(const std::string& dir) {
  for (std::string d = dir;; d = parent(d)) {
    const std::string dotgit = (d == "/" ? "" : d) + "/.git";
    struct stat st;
    if (lstat(dotgit.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode)) return std::optional<LinkedWorktree>();  // a repository's own .git
      auto line = read_line(dotgit);
      if (!line || line->rfind("gitdir: ", 0) != 0) return std::optional<LinkedWorktree>();
      std::string gd = line->substr(8);
      if (gd.empty()) return std::optional<LinkedWorktree>();
      if (gd[0] != '/') gd = d + "/" + gd;
      auto git_dir = real(gd);
      if (!git_dir) return std::optional<LinkedWorktree>();
      // <common>/worktrees/<id>, whose gitdir names this .git and whose commondir leads to <common>.
      if (parent(*git_dir).size() < 10 || parent(*git_dir).substr(parent(*git_dir).size() - 10) != "/worktrees")
        return make_error("the .git file names a git directory that is not a linked worktree's", dotgit,
                          "no git grants were added; check the file");
      const std::string common_guess = parent(parent(*git_dir));
      auto back = read_line(*git_dir + "/gitdir");
      auto back_real = back ? real(*back) : std::nullopt;
      auto dotgit_real = real(dotgit);
      if (!back_real || !dotgit_real || *back_real != *dotgit_real)
        return make_error("the linked worktree's git directory does not name this worktree back (" + *git_dir + "/gitdir)",
                          dotgit, "no git grants were added; `git worktree repair` fixes the links");
      auto cd = read_line(*git_dir + "/commondir");
      std::optional<std::string> common;
      if (cd) common = real((*cd)[0] == '/' ? *cd : *git_dir + "/" + *cd);
      if (!common || *common != common_guess)
        return make_error("the linked worktree's commondir does not lead to its repository", *git_dir + "/commondir",
                          "no git grants were added");
      struct stat o;
      if (stat((*common + "/objects").c_str(), &o) != 0 || !S_ISDIR(o.st_mode) ||
          stat((*common + "/refs").c_str(), &o) != 0 || !S_ISDIR(o.st_mode))
        return make_error("not a git repository (no objects or refs)", *common, "no git grants were added");
      auto top = real(d);
      return std::optional<LinkedWorktree>(LinkedWorktree{top ? *top : d, *git_dir, *common});
    }
    if (d == "/") return std::optional<LinkedWorktree>();
  }
}

void add_worktree_grants(PolicyBuilder& b, const LinkedWorktree& w, const std::string& refs_subdir,
                         const Origin& origin) {
  const std::string& c = w.common_dir;
  b.allow(c, Access::Read, origin);
  b.allow(w.git_dir, Access::ReadWrite, origin);
  b.allow(c + "/objects", Access::ReadWrite, origin);
  b.allow_optional(c + "/" + refs_subdir, Access::ReadWrite, origin);
  b.allow_optional(c + "/logs/" + refs_subdir, Access::ReadWrite, origin);
  b.allow_optional(w.git_dir + "/commondir", Access::Read, origin);
  b.allow_optional(w.git_dir + "/gitdir", Access::Read, origin);
}

}  // namespace paddock::jail
