#include "cli/git_identity.h"

#include <map>

#include "jail/process.h"

namespace paddock::cli {
namespace {

bool plausible(const std::string& v) {
  if (v.empty() || v.size() > 256) return false;
  for (unsigned char c : v)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> git_identity_env(const std::string& git_output) {
  std::map<std::string, std::string> found;
  std::size_t start = 0;
  while (start < git_output.size()) {
    std::size_t end = git_output.find('\0', start);
    if (end == std::string::npos) end = git_output.size();
    std::string record = git_output.substr(start, end - start);
    start = end + 1;
    std::size_t nl = record.find('\n');
    if (nl == std::string::npos) continue;  // a key without a value ("[user] name" alone)
    std::string key = record.substr(0, nl);
    if (key == "user.name" || key == "user.email") found[key] = record.substr(nl + 1);
  }
  std::vector<std::pair<std::string, std::string>> env;
  if (auto n = found.find("user.name"); n != found.end() && plausible(n->second)) {
    env.emplace_back("GIT_AUTHOR_NAME", n->second);
    env.emplace_back("GIT_COMMITTER_NAME", n->second);
  }
  if (auto e = found.find("user.email"); e != found.end() && plausible(e->second)) {
    env.emplace_back("GIT_AUTHOR_EMAIL", e->second);
    env.emplace_back("GIT_COMMITTER_EMAIL", e->second);
  }
  return env;
}

std::vector<std::pair<std::string, std::string>> host_git_identity(const std::string& cwd) {
  const std::vector<std::string> argv = {"git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
                                         "config", "-z", "--get-regexp", "^user\\.(name|email)$"};
  auto r = jail::run_process(argv, cwd, {"GIT_TERMINAL_PROMPT=0", "LC_ALL=C"});
  if (!r || r->status != 0) return {};
  return git_identity_env(r->out);
}

}  // namespace paddock::cli
