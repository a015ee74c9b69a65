#include "integrate/integrate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "agents/agent.h"
#include "sys/anchored_dir.h"
#include "sys/state_dir.h"
#include "sys/unique_fd.h"

namespace paddock::integrate {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kBegin = "<!-- paddock:begin (managed by `paddock integrate`; edits here are replaced) -->";
constexpr const char* kEnd = "<!-- paddock:end -->";
constexpr const char* kHookName = "paddock-hook.sh";
constexpr std::size_t kMaxFile = 4u << 20;

constexpr const char* kInstructions =
    "When you run inside paddock (the environment variable PADDOCK_POLICY names a file), you are in a\n"
    "sandbox: only the paths, hosts and environment that policy lists are yours. A failure such as\n"
    "\"Permission denied\", \"Read-only file system\", \"Operation not permitted\" or a host that cannot\n"
    "be reached may be the sandbox, not a bug. Do not try to work around it (other paths, copies,\n"
    "other tools): tell the user what was refused and the flag to re-run paddock with, e.g.\n"
    "`--allow PATH`, `--read PATH` or `--allow-domain HOST`; `paddock why --path PATH --op write`\n"
    "explains a decision. Files the host runs later (.git/hooks, .git/config, editor and agent\n"
    "settings) are read-only on purpose.\n";

// The hook: POSIX sh and awk (Claude Code ships as a native binary: Node may not be there), no
// dependencies. Silent outside paddock and on success; on a sandbox-looking failure inside
// paddock, stderr + exit 2, which Claude Code feeds to its model. It reads the policy file paddock
// exposes (PADDOCK_POLICY, written by policy_json_text: one key per line, keys sorted).
const char* const kHook = R"SH(#!/bin/sh
# Installed by `paddock integrate claude`; removed by `paddock integrate claude --remove`.
# Claude Code runs it after each tool call (PostToolUse, PostToolUseFailure). Inside paddock, when
# the call failed in a way the sandbox may have caused, it tells the model what the sandbox allows
# and what to ask the user for. It writes nothing and exits 0 otherwise.
[ -n "$PADDOCK_POLICY" ] && [ -r "$PADDOCK_POLICY" ] || exit 0
input=$(cat)
printf '%s' "$input" | grep -Eiq 'Permission denied|Read-only file system|Operation not permitted|EACCES|EROFS|EPERM|Could not resolve host|getaddrinfo|ENOTFOUND|ECONNREFUSED|Connection refused|Network is unreachable|Address family not supported' || exit 0
tool=$(printf '%s' "$input" | sed -n 's/.*"tool_name" *: *"\([^"]*\)".*/\1/p' | head -n 1)
paths=$(awk '
  /^  "paths": \[/ { inside = 1; next }
  inside && /^  \]/ { inside = 0 }
  inside && /^      "access":/ { v = $0; sub(/^[^:]*: *"/, "", v); sub(/".*/, "", v); access = v }
  inside && /^        "kind":/ { v = $0; sub(/^[^:]*: *"/, "", v); sub(/".*/, "", v); kind = v }
  inside && /^      "path":/ { v = $0; sub(/^[^:]*: *"/, "", v); sub(/".*/, "", v); if (kind != "built-in") print "  " v " (" access ")" }
' "$PADDOCK_POLICY")
network=$(sed -n 's/^    "mode": *"\([a-z]*\)".*/\1/p' "$PADDOCK_POLICY" | head -n 1)
{
  echo "[paddock] The ${tool:-tool} call failed, and this may be the paddock sandbox."
  echo "Paths granted (besides read-only system directories, a fresh HOME and a private /tmp):"
  echo "${paths:-  (none)}"
  echo "Network: ${network:-unknown} (off: none; filtered: only the allowed hosts; host: all)."
  echo "Do not work around it. If the task needs more, stop and tell the user the flag to re-run paddock with:"
  echo "  --allow PATH (read+write), --read PATH, --allow-domain HOST;"
  echo "  \`paddock why --path PATH --op write\` explains a path outside the sandbox."
} >&2
exit 2
)SH";

// Reads NAME in DIRFD (a regular file, no symlink, at most 4 MiB); "" when absent.
Result<std::string> read_at(int dirfd, const std::string& name, const std::string& path, bool* exists) {
  sys::UniqueFd fd(openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    if (errno == ENOENT) {
      *exists = false;
      return std::string();
    }
    if (errno == ELOOP) return make_error("a symlink: paddock does not write through one", path);
    return errno_error("cannot read", errno, path);
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return make_error("not a regular file", path);
  if (static_cast<std::size_t>(st.st_size) > kMaxFile) return make_error("larger than 4 MiB", path);
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    ssize_t n = read(fd.get(), text.data() + got, text.size() - got);
    if (n <= 0) return errno_error("cannot read", errno, path);
    got += static_cast<std::size_t>(n);
  }
  *exists = true;
  return text;
}

// The directory HOME/REL, created (0700) when CREATE, opened with no symlink followed.
Result<sys::UniqueFd> open_agent_dir(const std::string& home, const std::string& rel, bool create) {
  const std::string dir = home + "/" + rel;
  if (create) {
    auto made = sys::make_dir_under(home, dir, 0700);
    if (!made) return std::move(made).take_error();
  }
  return sys::open_dir_no_symlinks(dir);
}

bool is_our_hook(const ojson& h) {
  return h.is_object() && h.contains("command") && h["command"].is_string() &&
         h["command"].get<std::string>().find(kHookName) != std::string::npos;
}

// SETTINGS with our hook entries added (or, with REMOVE, taken out) under each event.
bool edit_hooks(ojson& settings, const std::string& command, bool remove) {
  bool changed = false;
  for (const char* event : {"PostToolUse", "PostToolUseFailure"}) {
    ojson& hooks = settings["hooks"];
    if (!hooks.is_object()) hooks = ojson::object();
    ojson& list = hooks[event];
    if (!list.is_array()) list = ojson::array();
    bool present = false;
    for (auto it = list.begin(); it != list.end();) {
      if (it->is_object() && (*it)["hooks"].is_array()) {
        auto& inner = (*it)["hooks"];
        const auto before = inner.size();
        if (remove) {
          for (auto h = inner.begin(); h != inner.end();) h = is_our_hook(*h) ? inner.erase(h) : h + 1;
        } else {
          present = present || std::any_of(inner.begin(), inner.end(), is_our_hook);
        }
        changed = changed || inner.size() != before;
        if (remove && inner.empty() && before != 0) {
          it = list.erase(it);
          continue;
        }
      }
      ++it;
    }
    if (!remove && !present) {
      list.push_back({{"matcher", "*"}, {"hooks", ojson::array({{{"type", "command"}, {"command", command}}})}});
      changed = true;
    }
    if (list.empty()) hooks.erase(event);
    if (hooks.empty()) settings.erase("hooks");
  }
  return changed;
}

Result<void> write_at(int dirfd, const std::string& name, const std::string& text, mode_t mode) {
  return sys::write_file_at(dirfd, name, text, mode);
}

// The managed section of DIR/NAME set (or removed).
Result<Change> manage_section(int dirfd, const std::string& dir, const std::string& name, bool remove) {
  const std::string path = dir + "/" + name;
  bool exists = false;
  auto text = read_at(dirfd, name, path, &exists);
  if (!text) return std::move(text).take_error();
  const std::string next = with_managed_section(*text, remove ? "" : kInstructions);
  if (next == *text) return Change{path, remove ? "no paddock section" : "section already there"};
  if (remove && next.empty() && exists) {
    if (unlinkat(dirfd, name.c_str(), 0) != 0) return errno_error("cannot remove", errno, path);
    return Change{path, "removed (it held only paddock's section)"};
  }
  if (auto w = write_at(dirfd, name, next, 0644); !w) return std::move(w).take_error();
  return Change{path, remove ? "paddock section removed" : "paddock section written"};
}

// The hook in DIR/settings.json (Claude Code's format) and its script in DIR/hooks.
Result<void> claude_code_hook(int dirfd, const std::string& home, const AgentInfo& agent, bool remove,
                              std::vector<Change>& out) {
  const AgentIntegration& in = *agent.integration;
  const std::string rel = in.dir;
  const std::string base = home + "/" + rel;
  // settings.json: our two hook entries; everything else as it was.
  bool exists = false;
  auto text = read_at(dirfd, "settings.json", base + "/settings.json", &exists);
  if (!text) return std::move(text).take_error();
  ojson settings = ojson::object();
  if (exists && !text->empty()) {
    try {
      settings = ojson::parse(*text);
    } catch (const std::exception& e) {
      return make_error(std::string("not valid JSON (") + e.what() + "): left as it is", base + "/settings.json",
                        "fix or move it, then run `paddock integrate " + std::string(agent.name) + "` again");
    }
    if (!settings.is_object()) return make_error("not a JSON object: left as it is", base + "/settings.json");
  }
  const std::string command = "\"$HOME\"/" + rel + "/hooks/" + kHookName;
  if (edit_hooks(settings, command, remove)) {
    if (auto w = write_at(dirfd, "settings.json", settings.dump(2) + "\n", 0600); !w) return std::move(w).take_error();
    out.push_back({base + "/settings.json", remove ? "paddock's hooks removed" : "hooks.PostToolUse and hooks.PostToolUseFailure registered"});
  } else {
    out.push_back({base + "/settings.json", remove ? "no paddock hooks" : "hooks already registered"});
  }
  // The hook script itself.
  const std::string hook_path = base + "/hooks/" + kHookName;
  if (remove) {
    auto hooks_dir = open_agent_dir(home, rel + "/hooks", false);
    if (hooks_dir && unlinkat(hooks_dir->get(), kHookName, 0) == 0) out.push_back({hook_path, "removed"});
    return {};
  }
  auto hooks_dir = open_agent_dir(home, rel + "/hooks", true);
  if (!hooks_dir) return std::move(hooks_dir).take_error();
  bool have = false;
  auto cur = read_at(hooks_dir->get(), kHookName, hook_path, &have);
  if (have && cur && *cur == kHook) {
    out.push_back({hook_path, "already installed"});
  } else {
    if (auto w = write_at(hooks_dir->get(), kHookName, kHook, 0755); !w) return std::move(w).take_error();
    out.push_back({hook_path, "installed"});
  }
  return {};
}

// What the agent's registration (src/agents/) says to install, or to take back.
Result<std::vector<Change>> integrate_agent(const std::string& home, const AgentInfo& agent, bool remove) {
  const AgentIntegration& in = *agent.integration;
  std::vector<Change> out;
  auto dir = open_agent_dir(home, in.dir, !remove);
  if (!dir) {
    if (remove) return out;  // nothing was installed
    return std::move(dir).take_error();
  }
  if (in.claude_code_hook) {
    if (auto h = claude_code_hook(dir->get(), home, agent, remove, out); !h) return std::move(h).take_error();
  }
  auto section = manage_section(dir->get(), home + "/" + in.dir, in.instructions_file, remove);
  if (!section) return std::move(section).take_error();
  out.push_back(*section);
  return out;
}

}  // namespace

std::vector<std::string> agents() {
  std::vector<std::string> out;
  for (const AgentInfo& a : paddock::agents()) {
    if (a.integration) out.emplace_back(a.name);
  }
  return out;
}

const std::string& claude_hook_script() {
  static const std::string s = kHook;
  return s;
}

std::string with_managed_section(const std::string& text, const std::string& body) {
  std::string rest = text;
  const auto b = rest.find(kBegin);
  if (b != std::string::npos) {
    auto e = rest.find(kEnd, b);
    e = e == std::string::npos ? rest.size() : e + std::string(kEnd).size();
    if (e < rest.size() && rest[e] == '\n') ++e;
    std::size_t start = b;
    if (start > 0 && rest[start - 1] == '\n' && start > 1 && rest[start - 2] == '\n') --start;  // our blank line
    rest.erase(start, e - start);
  }
  if (body.empty()) return rest;
  std::string out = rest;
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (!out.empty()) out += '\n';
  out += std::string(kBegin) + "\n" + body + kEnd + "\n";
  return out;
}

Result<std::vector<Change>> apply(const std::string& agent, const std::string& home, bool remove) {
  if (home.empty() || home[0] != '/') return make_error("HOME must be an absolute path", home);
  const AgentInfo* a = find_agent(agent);
  if (a == nullptr || !a->integration) {
    std::string known;
    for (const std::string& n : agents()) known += (known.empty() ? "" : ", ") + n;
    return make_error("unknown agent \"" + agent + "\"", "paddock integrate", "known: " + known);
  }
  return integrate_agent(home, *a, remove);
}

}  // namespace paddock::integrate
