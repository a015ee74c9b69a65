#include "jail/enclosing_repo.h"

#include <sys/stat.h>

#include <cstdlib>

#include "jail/process.h"

namespace paddock::jail {
namespace {

bool present(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// Whether git's discovery (setup.c) could find anything from CWD up: in each directory it looks at
// a `.git` entry, then at the directory itself as a bare repository, which needs a HEAD. With
// neither anywhere up to the root, git finds nothing, and is not asked (a process per run).
bool discovery_could_find(const std::string& cwd) {
  for (std::string d = cwd;;) {
    const std::string prefix = d == "/" ? "" : d;
    if (present(prefix + "/.git") || present(prefix + "/HEAD")) return true;
    if (d == "/") return false;
    const std::size_t slash = d.rfind('/');
    d = slash == 0 ? "/" : d.substr(0, slash);
  }
}

}  // namespace

std::optional<std::string> enclosing_repository_top(const std::string& cwd) {
  const bool env = std::getenv("GIT_DIR") != nullptr || std::getenv("GIT_WORK_TREE") != nullptr;
  if (!env && present(cwd + "/.git")) return std::nullopt;  // discovery stops at CWD's own .git
  if (!env && !discovery_could_find(cwd)) return std::nullopt;
  auto r = jail::run_git({"rev-parse", "--show-toplevel"}, cwd);
  if (!r || r->status != 0) return std::nullopt;
  std::string top = r->out;
  while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
  if (top.empty() || top[0] != '/' || top == cwd || cwd.rfind(top == "/" ? top : top + "/", 0) != 0)
    return std::nullopt;
  return top;
}

std::string enclosing_repository_line(const std::string& cwd, const std::string& top) {
  return "the project " + cwd + " lies inside the git repository " + top +
         ", which the sandbox does not see (git inside says \"not a git repository\"); to work on the "
         "repository, run from " + top + " (or add --allow " + top + ": the whole repository writable)";
}

}  // namespace paddock::jail
