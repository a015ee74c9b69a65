#include "policy/state_paths.h"

#include "policy/path_util.h"

namespace paddock {

std::string paddock_state_dir(const HostContext& ctx) {
  const std::string state = !ctx.state_home.empty() && ctx.state_home[0] == '/'
                                ? path::normalize(ctx.state_home)
                                : path::join(path::normalize(ctx.home), ".local/state");
  return path::join(state, "paddock");
}

std::vector<std::string> paddock_state_dirs(const HostContext& ctx) {
  std::vector<std::string> dirs = {paddock_state_dir(ctx)};
  if (ctx.uid == 0 && dirs[0] != kSystemStateDir) dirs.push_back(kSystemStateDir);
  return dirs;
}

}  // namespace paddock
