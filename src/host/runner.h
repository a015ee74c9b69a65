// The two halves of `pi` on a shared host (docs/host.md):
//
//   wrapper  /usr/local/bin/pi -> `paddock host wrap --config C pi -- ARGS`, as the host user:
//            checks what it can (a friendly refusal without sudo), then execs
//            `sudo -n PADDOCK host runner --config C pi -- ARGS` and nothing else.
//   runner   as root, started by sudo: trusts nothing the wrapper checked. It identifies the
//            caller (SUDO_UID, cross-checked against its parent sudo process), reloads the
//            root-owned config, re-resolves the user's roots and the directory it was started in,
//            syncs the user's config (read as the user) into the agent's per-user state (written
//            as the agent), merges managed settings and env, mounts the project idmapped in a
//            mount namespace of its own, becomes the agent user for good, and only then builds
//            the sandbox's policy.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "host/config.h"
#include "host/env.h"
#include "host/roots.h"
#include "host/users.h"
#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock::host {

// argv after argv[0], exactly: host runner --config CONFIG AGENT -- ARGS...
// (`host wrap` takes the same shape.) Anything else is refused: sudo matches the joined
// command line, so "host runner --config C pi -- x" as one argument must not get through either.
struct FixedArgs {
  std::string config;
  std::string agent;
  std::vector<std::string> args;
};
Result<FixedArgs> parse_fixed_argv(const std::vector<std::string>& argv, const std::string& verb);

// What the runner knows about who started it.
struct CallerFacts {
  uid_t ruid = 0;
  uid_t euid = 0;
  std::optional<std::string> sudo_uid;
  std::optional<std::string> sudo_user;
  pid_t ppid = 0;
  std::string parent_exe;          // readlink /proc/PPID/exe
  std::optional<uid_t> parent_exe_owner;
  std::optional<uid_t> parent_ruid;  // /proc/PPID/status, the Uid: line's first field
};
CallerFacts caller_facts_from_process();

// The host user who ran the wrapper. Refused: not root (called directly), no or malformed
// SUDO_UID, SUDO_USER not that uid's name, root itself, or a parent that is not a root-owned sudo
// whose real uid is SUDO_UID (root forging SUDO_UID by hand, or sudo having gone away).
Result<UserInfo> identify_caller(const CallerFacts& f, const UserDb& db);

// Everything `paddock host explain` shows and the runner applies, for one user and agent.
struct Assembly {
  const AgentEntry* agent = nullptr;
  const UserEntry* entry = nullptr;
  UserInfo user;
  std::vector<ResolvedRoot> roots;
  std::string config_dir;  // the user's config dir (their home + config_source)
  std::string state_home;  // <state_dir>/users/<user>: HOME inside the sandbox
  std::vector<std::vector<EnvVar>> env_layers;  // runtime, synced, managed, managed files
  std::vector<std::string> env_notes;           // layers that could not be read (explain)
};

// The part of the runner's work that explain repeats without privileges: which user entry,
// which roots, where things live. Errors for a user or agent the config does not allow.
Result<Assembly> assemble(const HostConfig& cfg, const std::string& agent, const UserInfo& user, const UserDb& db,
                          const FsView& fs);

// The managed layers: [agents.X.env] and each env_files entry (which must be root's; read here).
Result<std::vector<std::vector<EnvVar>>> managed_env_layers(const AgentEntry& agent, bool require_root_owned);

struct Prepared {
  Policy policy;
  RunOptions options;
  std::string agent;
  std::string user;
};

// The runner, up to a policy ready to run: every check, the sync, the mount, the drop to the
// agent user. The caller (as the agent user now) runs it and reports.
Result<Prepared> prepare_runner(const FixedArgs& args, const CallerFacts& facts);

// The wrapper: the sudo command line to exec, after the checks the user's own rights allow.
Result<std::vector<std::string>> wrapper_command(const FixedArgs& args);

}  // namespace paddock::host
