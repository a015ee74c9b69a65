// /etc/paddock/host.toml: which agents run as their own user, who may use them, and where
// (docs/host.md). Every misconfiguration is an error naming FILE:LINE:COL; the file itself must
// be root's and writable by nobody else, since it decides what root's runner does.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/users.h"
#include "paddock/result.h"
#include "paddock/state.h"

namespace paddock::host {

inline constexpr const char* kDefaultConfig = "/etc/paddock/host.toml";

// One project root of a user, as written: "~/src", "/srv/projects/alice", or a table
// { path = "~", allow_broad = true } for a root that is "/", a whole home, or contains one.
struct RootSpec {
  std::string given;
  bool broad = false;
  std::string where;  // file:line:col
};

struct UserEntry {
  std::string name;
  std::string where;
  std::vector<RootSpec> roots;
  std::string config_source;  // relative to the user's home; "" means the agent's
  std::string config_source_where;
};

struct EnvEntry {
  std::string name;
  std::string value;
  std::string where;
};

struct AgentEntry {
  std::string name;
  std::string where;
  std::string binary;          // absolute: the real agent, hidden from host users by install
  std::string binary_where;
  std::string hide_dir;        // a directory made 0750 root:<group> by install ("" = the binary alone)
  std::string hide_dir_where;
  std::string command;         // the wrapper's name in [host] wrapper_dir (default: the agent's name)
  std::string user;            // default "<agent>-agent"
  std::string group;           // default: the user's name
  std::string state_dir;       // default host_agent_state_dir(agent) (paddock/state.h)
  std::string state_dir_where;
  std::string config_source;   // relative to a home; where the agent reads its config (default ".<agent>")
  std::string settings_file = "settings.json";  // inside config_source: managed settings merge into it
  std::string user_env_file = "paddock.env";    // inside the user's config dir: the synced env
  std::vector<std::pair<std::string, std::string>> env_files;  // path, where
  std::vector<EnvEntry> env;   // [agents.X.env], sorted by name
  nlohmann::json settings = nlohmann::json::object();  // [agents.X.settings]
  std::string settings_where;
  std::vector<std::string> users;  // who may run it: `users = [...]`, default every [users.*]
  std::string profile;         // paddock profile of the sandbox (default: the built-in one for the agent)
  std::string network;         // "" (the profile's), "off", "on", "filtered"
  std::vector<std::string> pass_env;  // names taken from the invoking shell, lowest precedence
};

struct HostConfig {
  std::string file;
  std::string paddock = "/usr/local/bin/paddock";  // the binary the wrappers and sudoers rules name
  std::string wrapper_dir = "/usr/local/bin";
  std::string sudoers_dir = "/etc/sudoers.d";
  std::string manifest = kHostManifest;
  std::vector<AgentEntry> agents;  // by name
  std::vector<UserEntry> users;    // by name

  const AgentEntry* agent(std::string_view name) const;
  const UserEntry* user(std::string_view name) const;
};

// The runtime names passed by default (terminal and locale: what a TUI needs to draw).
const std::vector<std::string>& default_pass_env();

// Parses TEXT (the contents of FILE) and checks it against USERS. No file system access.
Result<HostConfig> parse_host_config(std::string_view text, const std::string& file, const UserDb& users);

// FILE must be a regular file owned by root, not writable by group or others, in directories
// that are root's and not writable by others (sticky ones excepted, like /tmp); a symlink is
// followed and both paths checked. Returns why not, or nothing.
Result<void> check_root_owned(const std::string& file);

// check_root_owned, then reads (at most 1 MiB) and parses.
Result<HostConfig> load_host_config(const std::string& file, const UserDb& users);

// Whether a sandbox can see the agent's state directory A.state_dir (as written: the runner and
// `host check` ask again with the path resolved): under a system path every sandbox reads, under
// the agent's own program (hide_dir), in or around one of its users' project roots. Returns how
// ("lies under /opt, which every sandbox can read"), or nullopt. The state holds every host
// user's part: a run that sees it reads the others' sessions and logins (issue 25, class 12).
std::optional<std::string> state_dir_seen_by(const AgentEntry& a, const HostConfig& cfg, const UserDb& users);
// The same for the state directory as it resolves on disk now (symlinks followed, the system paths
// resolved too); when it does not exist yet, as written.
std::optional<std::string> state_dir_seen_on_disk(const AgentEntry& a, const HostConfig& cfg, const UserDb& users);

// Characters a path may have where it is written into a sudoers rule or a wrapper script.
bool sudoers_safe_path(std::string_view p);

}  // namespace paddock::host
