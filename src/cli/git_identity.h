// The user's git identity for the sandbox (issue 30 item 6): a fresh HOME has no ~/.gitconfig, so
// `git commit` inside fails with "Author identity unknown". Only user.name and user.email pass —
// never the file, which can hold credential helpers, aliases, hooks and includes that run code —
// as GIT_AUTHOR_NAME/GIT_COMMITTER_NAME and GIT_AUTHOR_EMAIL/GIT_COMMITTER_EMAIL, the values the
// host's git resolves for the project (every scope, includes and includeIf, like `git config
// --get` run there).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace paddock::cli {

// The variables to set, from `git config -z --get-regexp ^user\.(name|email)$` output (NAME\nVALUE\0
// records, the last of a key winning as in git). A value that is empty, longer than 256 bytes or
// holds a control character is left out (it would pass nothing a person typed as a name).
std::vector<std::pair<std::string, std::string>> git_identity_env(const std::string& git_output);

// The same, asking the host's git in CWD (hooks, fsmonitor and prompts off). Empty when git is
// missing or knows no identity there.
std::vector<std::pair<std::string, std::string>> host_git_identity(const std::string& cwd);

}  // namespace paddock::cli
