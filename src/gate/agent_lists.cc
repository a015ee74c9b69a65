// Every agent's configuration in HOME that the host runs later: each agent declares its own
// (AgentInfo::home_config, src/agents/NAME.cc); this is their union, in the registry's order.
#include "agents/agent.h"
#include "gate/agent_config.h"

namespace paddock::gate {

const std::vector<KnownConfig>& known_agent_configs() {
  static const std::vector<KnownConfig> known = [] {
    std::vector<KnownConfig> all;
    for (const AgentInfo& a : agents()) all.insert(all.end(), a.home_config.begin(), a.home_config.end());
    return all;
  }();
  return known;
}

}  // namespace paddock::gate
