// Agents' own configuration in HOME that the host runs later (issue 12, class 4). An agent
// profile grants its state directory read-write (sessions, history, logins), and in it lie the
// files that make the agent, started later outside paddock, run commands with the user's rights:
// Claude Code's settings.json hooks and apiKeyHelper, MCP servers in ~/.claude.json, codex's
// `notify` and MCP servers in config.toml, pi's extensions and `!command` API keys.
//
// The profiles keep what the agent never writes read-only (src/policy/builtin_profiles.cc); what
// it must write (~/.claude.json, codex's config.toml, pi's settings.json and auth.json) is read
// before the run and compared after it, key by key, and every key that makes the host run or
// trust something is put back as it was; the sandbox's version is kept beside it. The same check
// covers the read-only ones, for what mounts cannot stop: one created where none existed, and
// the fallback, where Landlock cannot take writing away inside a writable directory.
//
// Every file is reached through a directory descriptor opened before the run with no symlink
// followed, and every write is a temp file renamed into place through it (sys::write_file_at).
#pragma once

#include <sys/types.h>
#include <time.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gate/quarantine.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::gate {

// How a watched path is compared after the run.
enum class ConfigFormat {
  Json,   // the keys listed are compared; the agent's other changes are kept
  Toml,   // the keys listed are compared; any change restores the whole previous file
  Whole,  // a file the agent never writes: any change restores the previous bytes
  Dir,    // a directory of code the agent never writes: anything changed in it is moved aside
};

// A key path in a JSON or TOML document: object keys, "*" for every key at that level.
struct ConfigKey {
  std::vector<std::string> path;
  bool commands_only = false;  // counts only when the old or new value is a "!command" string
};

struct KnownConfig {
  std::string rel;  // under HOME
  ConfigFormat format;
  std::string why;  // what on the host runs it
  std::vector<ConfigKey> keys;
};

// Every agent's known host-executed configuration (all built-in profiles' agents).
const std::vector<KnownConfig>& known_agent_configs();

// NEW_TEXT with every value at KEYS put back as OLD_TEXT has it (removed where OLD_TEXT has
// none). `parsed` is false when either is not a JSON object (nothing can be kept then);
// `changed` names the key paths put back, dotted ("projects./p.mcpServers").
struct JsonRestore {
  bool parsed = false;
  std::vector<std::string> changed;
  std::string merged;
};
JsonRestore restore_json_keys(std::string_view old_text, std::string_view new_text,
                              const std::vector<ConfigKey>& keys);
// The TOML keys (top level, or "*" under one) of KEYS whose values differ; `parsed` as above.
struct TomlDiff {
  bool parsed = false;
  std::vector<std::string> changed;
};
TomlDiff diff_toml_keys(std::string_view old_text, std::string_view new_text, const std::vector<ConfigKey>& keys);

class AgentConfigWatch {
 public:
  // Each known path under POLICY's HOME that a writable rule covers: its nearest existing
  // directory opened (no symlink followed) and its content read, now.
  static AgentConfigWatch before(const Policy& policy);
  static AgentConfigWatch before(const std::string& home, const std::vector<PathRule>& rules,
                                 const std::vector<KnownConfig>& known);
  // What changed since before(): put back or moved aside, each with its exact path.
  // Paths TRUSTED says yes to (content paddock trusts, an undo restore's) are left alone.
  std::vector<LeftBehind> after(const std::function<bool(const std::string&)>& trusted = {}) const;
  // Whether PATH is at or under a path this watch checks (and puts back: other checks leave it).
  bool covers(const std::string& path) const;

  struct Saved {
    std::string bytes;
    mode_t mode = 0600;
  };

  static constexpr std::size_t kMaxFileSize = 4u << 20;
  static constexpr std::size_t kDirEntryBudget = 200'000;  // per watched directory
  static constexpr std::size_t kSavedFileSize = 256u << 10;  // a directory's files kept to put back
  static constexpr std::size_t kSavedTotal = 4u << 20;       // per watched directory

 private:
  struct Watched {
    std::size_t known = 0;                          // index in known_
    std::string path;                               // absolute host path
    std::shared_ptr<const sys::UniqueFd> anchor;    // its nearest existing directory
    std::string anchor_path;
    dev_t anchor_dev = 0;
    ino_t anchor_ino = 0;
    std::vector<std::string> rest;                  // components from the anchor to it
    bool existed = false;
    bool readable = false;                          // a regular file of at most kMaxFileSize
    std::string bytes;
    mode_t mode = 0600;
    dev_t dev = 0;
    ino_t ino = 0;
    // A directory's small regular files, as they were: put back when the run changed them
    // (codex appends the commands you allow to rules/default.rules, next to yours).
    std::map<std::string, Saved> saved;
  };
  void check(const Watched& w, std::vector<LeftBehind>& out) const;
  void anchor_replaced(const Watched& w, std::vector<LeftBehind>& out) const;
  void check_dir(const Watched& w, int parent, const std::string& name, std::vector<LeftBehind>& out) const;
  void check_file(const Watched& w, int parent, const std::string& name, std::vector<LeftBehind>& out) const;

  std::vector<KnownConfig> known_;  // owned copy: Watched points into it
  std::vector<Watched> watched_;
  Baseline base_;  // when the run started, and the inodes in the watched directories before it
};

}  // namespace paddock::gate
