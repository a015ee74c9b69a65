// Agents' own configuration in HOME that the host runs later (issue 12, class 4; issue 25,
// class 7). An agent profile grants its state directory (sessions, history, logins), and in it
// lie the files that make the agent, started later outside paddock, run commands with the user's
// rights: Claude Code's settings.json hooks, statusLine script and local-install launcher, MCP
// servers in ~/.claude.json, codex's `notify`, MCP servers and telemetry exporters in config.toml,
// pi's extensions, managed binaries and `!command` API keys.
//
// Inverted, for every built-in profile: what the agent may change is listed, everything else is
// put back. The profiles keep the agent's directories read-only where the agent allows it, with
// only the data paths it writes read-write (src/policy/builtin_profiles.cc); after the run each
// agent's state directory is compared with what it held before: an entry that is not the agent's
// data (its sessions, logs, caches, logins) created or changed is moved aside, a small file that
// was there put back. The config files the agent must write (~/.claude.json, codex's
// config.toml, pi's settings.json and auth.json) are compared key by key against an allowlist of
// the keys the agent itself writes that run or trust nothing; every other key is put back as it
// was and the sandbox's version kept beside it. The same checks cover what mounts cannot stop:
// a file created where none existed, and the fallback, where Landlock cannot take writing away
// inside a writable directory.
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

#include "agents/host_config.h"
#include "gate/quarantine.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::gate {

// Every agent's known host-executed configuration (each registered agent's home_config;
// ConfigFormat, ConfigKey and KnownConfig are in agents/host_config.h).
const std::vector<KnownConfig>& known_agent_configs();

// NEW_TEXT with only the values at ALLOWED taken from it: every other key as OLD_TEXT has it
// (removed where OLD_TEXT has none). An object removed whole that holds allowed keys stays removed
// (a project forgotten: nothing it held can run). `parsed` is false when either is not a JSON
// object (nothing can be kept then); `changed` names the key paths put back, dotted
// ("projects./p.mcpServers"), in the new document's order; `merged` is the document to write
// when `changed` is not empty.
struct JsonRestore {
  bool parsed = false;
  std::vector<std::string> changed;
  std::string merged;
};
JsonRestore keep_allowed_json(std::string_view old_text, std::string_view new_text,
                              const std::vector<ConfigKey>& allowed);
// The key paths of NEW_TEXT outside ALLOWED whose values differ from OLD_TEXT's (the same rule as
// keep_allowed_json, on TOML); `parsed` as above.
struct TomlDiff {
  bool parsed = false;
  std::vector<std::string> changed;
};
TomlDiff toml_outside_allowed(std::string_view old_text, std::string_view new_text,
                              const std::vector<ConfigKey>& allowed);

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
    // A Data directory's entries checked by another KnownConfig (~/.codex/config.toml).
    std::vector<std::string> others;
  };
  // Whether entry NAME of the Data or Dir directory W is left to the agent (or to another check).
  bool passed_over(const Watched& w, const std::string& name) const;
  // The first components below known_[I] of the known paths nested in it.
  std::vector<std::string> nested_in(std::size_t i) const;
  void check(const Watched& w, std::vector<LeftBehind>& out) const;
  void anchor_replaced(const Watched& w, std::vector<LeftBehind>& out) const;
  void check_dir(const Watched& w, int parent, const std::string& name, std::vector<LeftBehind>& out) const;
  void check_file(const Watched& w, int parent, const std::string& name, std::vector<LeftBehind>& out) const;

  std::vector<KnownConfig> known_;  // owned copy: Watched points into it
  std::vector<Watched> watched_;
  Baseline base_;  // when the run started, and the inodes in the watched directories before it
};

}  // namespace paddock::gate
