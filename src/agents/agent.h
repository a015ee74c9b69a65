// What paddock knows about one coding agent, in one place. Each agent is one file,
// src/agents/NAME.cc, defining NAME_agent(); registry.cc lists them. The other folders look agents
// up here (built-in profiles, `paddock run -- AGENT`'s profile choice) instead of naming them.
// What it leaves that the host runs later is data here too (agents/host_config.h).
// Adding an agent: docs/profiles.md, "Adding an agent".
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "agents/host_config.h"

namespace paddock {

// `paddock integrate NAME`: where the agent reads instructions its model sees, and how it can be
// told about a refusal as it happens. src/integrate/ does the writing; this says where.
struct AgentIntegration {
  const char* summary;            // what is installed, for `paddock integrate --help` and docs
  const char* dir;                // the agent's own directory, under HOME (".claude")
  const char* instructions_file;  // in DIR: a file the agent puts before its model, where a managed
                                  // section explains paddock's refusals ("CLAUDE.md", "AGENTS.md")
  // Also a hook in DIR/settings.json (Claude Code's hooks format: PostToolUse and
  // PostToolUseFailure) that feeds the model the policy and the flag to ask for when a tool fails
  // inside paddock.
  bool claude_code_hook = false;
};

struct AgentInfo {
  const char* name;          // the command `paddock run -- NAME` starts, and its profile's name
  const char* display_name;  // how messages and docs call it ("Claude Code")
  const char* profile_toml;  // its built-in profile, in the user profiles' schema (docs/profiles.md)
  // What `paddock integrate NAME` installs (src/integrate/), or nothing.
  std::optional<AgentIntegration> integration = std::nullopt;
  // Files in a project that the agent, started later on the host, runs or loads (its project
  // settings: hooks, MCP servers): kept read-only inside every writable area (docs/policy.md,
  // "Protected paths").
  std::vector<ProtectedEntry> project_files = {};
  // Its configuration in HOME that the host runs later, and what the agent may change in it:
  // compared after every run (src/gate/agent_config.h). An allowlist: what is not named is put
  // back, so a key an agent adds in a later version shows up as "put back" until it is listed.
  // Each entry was found in the agent itself (its binary or sources at the version
  // tests/agents/package-lock.json pins, and the files it writes in tests/agents' runs).
  std::vector<KnownConfig> home_config = {};
};

// Every agent paddock knows, in the order `paddock profiles` lists them.
const std::vector<std::reference_wrapper<const AgentInfo>>& agents();
// The agent named NAME exactly ("claude"; not "claude-dev"), or nullptr.
const AgentInfo* find_agent(std::string_view name);

// One per src/agents/NAME.cc.
const AgentInfo& claude_agent();
const AgentInfo& codex_agent();
const AgentInfo& pi_agent();
const AgentInfo& aider_agent();
const AgentInfo& gemini_agent();
const AgentInfo& opencode_agent();
const AgentInfo& goose_agent();

}  // namespace paddock
