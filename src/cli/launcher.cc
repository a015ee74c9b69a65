#include "cli/launcher.h"

#include <sys/stat.h>
#include <unistd.h>

namespace paddock::cli {
namespace {

bool executable_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

}  // namespace

bool launcher_resolves(const std::string& cmd, const std::string& cwd, const std::string& path_env) {
  if (cmd.empty()) return false;
  if (cmd.find('/') != std::string::npos) return executable_file(cmd[0] == '/' ? cmd : cwd + "/" + cmd);
  std::size_t start = 0;
  while (start <= path_env.size()) {
    std::size_t end = path_env.find(':', start);
    if (end == std::string::npos) end = path_env.size();
    std::string dir = path_env.substr(start, end - start);
    if (executable_file((dir.empty() ? cwd : dir) + "/" + cmd)) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace paddock::cli
