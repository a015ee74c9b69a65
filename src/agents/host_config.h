// What an agent leaves that the host runs later, as plain data each agent's file declares
// (src/agents/NAME.cc) and the other folders consume: the project files kept read-only during a
// run (src/policy/protected_paths.cc) and the configuration in HOME compared after it
// (src/gate/agent_config.h says how each format is checked).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace paddock {

// A path the host runs or loads later on the user's behalf, and what runs it.
struct ProtectedEntry {
  const char* path;    // relative: to a writable rule root (workspace) or to HOME
  const char* reason;
};

// How a watched path in HOME is compared after the run.
enum class ConfigFormat {
  Json,   // the agent writes it: the keys listed may change, every other key is put back
  Toml,   // the same, but a change to any other key restores the whole previous file (comments)
  Whole,  // a file the agent never writes: any change restores the previous bytes
  Dir,    // a directory of code the agent never writes: anything changed in it is moved aside
  Data,   // the agent's state directory: the entries listed are its data; anything else created
          // or changed in it is moved aside (entries another KnownConfig names are checked by it)
};

// A key path in a JSON or TOML document: object keys, "*" for every key at that level. For a
// Data directory: one entry name, a glob pattern (fnmatch: "*.sqlite-wal").
struct ConfigKey {
  std::vector<std::string> path;
  // Allowed only while neither the old nor the new value is a "!command" string (pi runs those).
  bool unless_command = false;
};

struct KnownConfig {
  std::string rel;  // under HOME
  ConfigFormat format;
  std::string why;  // what on the host runs it
  std::vector<ConfigKey> keys;  // Json, Toml: the keys the agent may change; Data: its data entries
};

// Builders for the agents' lists.
namespace config_keys {
// One key path, each component a glob pattern (fnmatch).
inline ConfigKey key(std::initializer_list<const char*> p) {
  return {std::vector<std::string>(p.begin(), p.end()), false};
}
// Top-level keys (or a Data directory's entries).
inline std::vector<ConfigKey> top(std::initializer_list<const char*> names) {
  std::vector<ConfigKey> out;
  for (const char* n : names) out.push_back(key({n}));
  return out;
}
// PARENT.*.NAME for each name.
inline std::vector<ConfigKey> under(const char* parent, std::initializer_list<const char*> names) {
  std::vector<ConfigKey> out;
  for (const char* n : names) out.push_back(key({parent, "*", n}));
  return out;
}
inline std::vector<ConfigKey> operator+(std::vector<ConfigKey> a, const std::vector<ConfigKey>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace config_keys

}  // namespace paddock
