#include "cli/enclosing_repo.h"

#include <sys/stat.h>

#include <cstdlib>

#include "jail/process.h"

namespace paddock::cli {

std::optional<std::string> enclosing_repository_top(const std::string& cwd) {
  struct stat st;
  if (std::getenv("GIT_DIR") == nullptr && std::getenv("GIT_WORK_TREE") == nullptr &&
      lstat((cwd + "/.git").c_str(), &st) == 0)
    return std::nullopt;  // discovery stops at CWD's own .git
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

}  // namespace paddock::cli
