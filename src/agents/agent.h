// What paddock knows about one coding agent, in one place. Each agent is one file,
// src/agents/NAME.cc, defining NAME_agent(); registry.cc lists them. The other folders look agents
// up here (built-in profiles, `paddock run -- AGENT`'s profile choice) instead of naming them.
// Adding an agent: docs/profiles.md, "Adding an agent".
#pragma once

#include <string_view>
#include <vector>

namespace paddock {

struct AgentInfo {
  const char* name;          // the command `paddock run -- NAME` starts, and its profile's name
  const char* display_name;  // how messages and docs call it ("Claude Code")
  const char* profile_toml;  // its built-in profile, in the user profiles' schema (docs/profiles.md)
  // What `paddock integrate NAME` installs (src/integrate/), or nullptr where it has nothing.
  const char* integration = nullptr;
};

// Every agent paddock knows, in the order `paddock profiles` lists them.
const std::vector<AgentInfo>& agents();
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
