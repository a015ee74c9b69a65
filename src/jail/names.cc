// Jail names and the mode words of the command line and runtime.json.
#include <cstdio>

#include "paddock/jail.h"

namespace paddock::jail {

std::string_view to_string(WorkspaceMode m) {
  switch (m) {
    case WorkspaceMode::Host: return "host";
    case WorkspaceMode::Copy: return "copy";
    case WorkspaceMode::Overlay: return "overlay";
    case WorkspaceMode::Worktree: return "worktree";
  }
  return "?";
}

std::string_view to_string(HomeMode m) { return m == HomeMode::Stable ? "stable" : "temporary"; }

Result<WorkspaceMode> parse_workspace_mode(std::string_view s) {
  for (auto m : {WorkspaceMode::Host, WorkspaceMode::Copy, WorkspaceMode::Overlay, WorkspaceMode::Worktree})
    if (s == to_string(m)) return m;
  return make_error("unknown workspace mode \"" + std::string(s) + "\"", "--workspace",
                    "use host, copy, overlay or worktree");
}

Result<HomeMode> parse_home_mode(std::string_view s) {
  if (s == "stable") return HomeMode::Stable;
  if (s == "temporary") return HomeMode::Temporary;
  return make_error("unknown HOME mode \"" + std::string(s) + "\"", "--home", "use stable or temporary");
}

Result<void> check_name(std::string_view name) {
  // The name is shown in messages: control bytes as \xNN, never raw.
  auto shown = [&] {
    std::string out;
    for (unsigned char c : name.substr(0, 80)) {
      if (c < 0x20 || c == 0x7f || c >= 0x80) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\x%02x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + (name.size() > 80 ? "..." : "");
  };
  const char* hint = "a jail name is 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'";
  if (name.empty()) return make_error("empty jail name", "", hint);
  if (name.size() > kMaxNameLength)
    return make_error("jail name is " + std::to_string(name.size()) + " bytes long, more than 64", shown(), hint);
  if (name.find('/') != std::string_view::npos) return make_error("jail name contains '/'", shown(), hint);
  if (name == "." || name == ".." || name.find("..") != std::string_view::npos)
    return make_error("jail name contains \"..\"", shown(), hint);
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return make_error("jail name contains a control byte", shown(), hint);
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    if (!ok) return make_error("jail name contains a character other than letters, digits, '.', '_', '-'", shown(), hint);
  }
  if (name[0] == '.' || name[0] == '-') return make_error("jail name starts with '.' or '-'", shown(), hint);
  return {};
}

}  // namespace paddock::jail
