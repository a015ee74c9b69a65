// paddock's own state, defined once (paddock/state.h).
#include "paddock/state.h"

#include <unistd.h>

#include <cstdlib>

#include "policy/passwd_entry.h"
#include "policy/path_util.h"

namespace paddock {

std::string host_agent_state_dir(std::string_view agent) {
  return path::join(path::join(kSystemStateDir, "agents"), agent);
}

StateInputs StateInputs::from_environment(unsigned uid, std::string home) {
  StateInputs in;
  in.uid = uid;
  in.home = std::move(home);
  if (const char* x = std::getenv("XDG_STATE_HOME"); x != nullptr) in.xdg_state_home = x;
  if (const char* j = std::getenv("PADDOCK_JAILS_DIR"); j != nullptr) in.jails_dir = j;
  return in;
}

StateLayout state_layout(const StateInputs& in) {
  StateLayout s;
  const std::string state = !in.xdg_state_home.empty() && in.xdg_state_home[0] == '/'
                                ? path::normalize(in.xdg_state_home)
                                : path::join(path::normalize(in.home), ".local/state");
  s.user_dir = path::join(state, "paddock");
  s.undo_dir = path::join(s.user_dir, "undo");
  s.git_objects_dir = path::join(s.user_dir, "git-objects");
  if (in.uid == 0) s.system_dir = kSystemStateDir;
  if (!in.jails_dir.empty()) {
    s.jails_dir = in.jails_dir[0] == '/' ? path::normalize(in.jails_dir) : in.jails_dir;
  } else {
    s.jails_dir = path::join(in.uid == 0 ? s.system_dir : s.user_dir, "jails");
  }
  return s;
}

std::vector<std::string> StateLayout::masked() const {
  std::vector<std::string> dirs = {user_dir};
  if (!system_dir.empty() && system_dir != user_dir) dirs.push_back(system_dir);
  // A relative jails_dir names no store (jail::Store::open refuses it), so nothing to mask.
  if (!jails_dir.empty() && jails_dir[0] == '/') {
    bool inside = false;
    for (const std::string& d : dirs) inside = inside || path::is_at_or_under(jails_dir, d);
    if (!inside) dirs.push_back(jails_dir);
  }
  return dirs;
}

Result<StateLayout> state_layout_of_process() {
  const unsigned uid = ::getuid();
  std::string home;
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/') {
    home = h;
  } else if (auto pw = lookup_passwd(uid); pw && !pw->dir.empty() && pw->dir[0] == '/') {
    home = pw->dir;
  } else {
    return make_error("cannot find the home directory", "HOME", "set HOME to an absolute path");
  }
  return state_layout(StateInputs::from_environment(uid, std::move(home)));
}

}  // namespace paddock
