// The files paddock host install writes: the wrapper users run and the sudoers drop-in that lets
// exactly the configured users start exactly the runner.
#pragma once

#include <string>
#include <vector>

#include "host/config.h"

namespace paddock::host {

// /usr/local/bin/<command>: `exec PADDOCK host wrap --config CONFIG AGENT -- "$@"`.
std::string wrapper_script(const HostConfig& cfg, const AgentEntry& agent, const std::string& config_path);
std::string wrapper_path(const HostConfig& cfg, const AgentEntry& agent);

// The runner's fixed argv prefix (after the paddock binary): host runner --config CONFIG AGENT --
std::vector<std::string> runner_prefix(const std::string& config_path, const AgentEntry& agent);

// /etc/sudoers.d/paddock-<agent>: a Cmnd_Alias for exactly the runner with its fixed arguments
// (and anything after the fixed "--", which the runner hands to the agent as argv and never to a
// shell), the environment reset to pass_env, and one rule for the agent's allowed users.
std::string sudoers_rule(const HostConfig& cfg, const AgentEntry& agent, const std::string& config_path);
std::string sudoers_path(const HostConfig& cfg, const AgentEntry& agent);

}  // namespace paddock::host
