// The agents paddock knows: one line each, their knowledge in src/agents/NAME.cc.
#include "agents/agent.h"

namespace paddock {

const std::vector<std::reference_wrapper<const AgentInfo>>& agents() {
  // References to each agent's own static AgentInfo: its lists are built once, never copied.
  static const std::vector<std::reference_wrapper<const AgentInfo>> all = {
      claude_agent(), codex_agent(), pi_agent(), aider_agent(), gemini_agent(), opencode_agent(), goose_agent(),
  };
  return all;
}

const AgentInfo* find_agent(std::string_view name) {
  for (const AgentInfo& a : agents()) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

}  // namespace paddock
