// Environment scrubbing: the sandbox sees a documented safe set of the parent's variables, the
// ones passed by name, and the ones set explicitly. Nothing else: secrets in the parent's
// environment (API keys, cloud tokens, agent sockets) never reach the sandbox by accident.
// Documented in docs/policy.md ("Environment"); keep the two in step.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "paddock/sandbox.h"
#include "policy/env_names.h"

namespace paddock {

const std::vector<std::string>& safe_env_names() {
  // Terminal, locale and user-interface preferences only. No *_TOKEN, *_KEY, SSH_AUTH_SOCK,
  // DBUS_SESSION_BUS_ADDRESS, DISPLAY/WAYLAND_DISPLAY (sockets to host services), no proxies.
  static const std::vector<std::string> names = {
      "PATH",     "HOME",       "USER",   "LOGNAME",   "SHELL",    "TERM",
      "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "LANG", "LANGUAGE", "LC_*",
      "TZ",       "EDITOR",     "VISUAL", "PAGER",     "LESS",     "NO_COLOR",
      "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES",
  };
  return names;
}

bool valid_env_name(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

bool is_safe_env_name(std::string_view name) {
  for (const auto& s : safe_env_names()) {
    if (!s.empty() && s.back() == '*') {
      std::string_view prefix(s.data(), s.size() - 1);
      if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) return true;
    } else if (name == s) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> sandbox_environment(const Policy& policy,
                                             const std::vector<std::string>& host_env) {
  std::map<std::string, std::string> env;
  auto passed = [&](std::string_view name) {
    return is_safe_env_name(name) ||
           std::find(policy.env.pass.begin(), policy.env.pass.end(), name) != policy.env.pass.end();
  };
  for (const auto& kv : host_env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = kv.substr(0, eq);
    if (!valid_env_name(name) || !passed(name)) continue;
    env.try_emplace(name, kv.substr(eq + 1));  // the first of duplicate entries wins, as in getenv
  }
  for (const auto& [name, value] : policy.env.set) env[name] = value;

  // Facts of the sandbox, not preferences: these are fixed whatever the parent or flags say.
  env["HOME"] = policy.home;
  env["USER"] = policy.user;
  env["LOGNAME"] = policy.user;
  env["PWD"] = policy.cwd;
  env["TMPDIR"] = "/tmp";
  if (auto it = env.find("PATH"); it == env.end() || it->second.empty()) {
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  }

  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;  // std::map iterates in name order
}

}  // namespace paddock
