// The agents paddock knows: one line each, their knowledge in src/agents/NAME.cc.
#include "agents/agent.h"

namespace paddock {

const std::vector<AgentInfo>& agents() {
  static const std::vector<AgentInfo> all = {
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
