// Built-in profiles: "default" here, and each agent's own from its registration (src/agents/).
// Each grants what one agent needs beyond the default policy and nothing more; every line says
// why. Paths that may be absent use the *_if_exists lists.
#include "policy/builtin_profiles.h"

#include "agents/agent.h"

namespace paddock {

const std::vector<BuiltinProfile>& builtin_profiles() {
  static const std::vector<BuiltinProfile> profiles = [] {
    std::vector<BuiltinProfile> out = {
      {"default", R"(# The default policy: the project (cwd) read+write, the system read-only,
# a fresh empty HOME, a private /tmp, no network, a scrubbed environment.
description = "project read+write, system read-only, empty HOME, no network"
)"},
    };
    for (const AgentInfo& a : agents()) out.push_back({a.name, a.profile_toml});
    return out;
  }();
  return profiles;
}

std::string_view agent_profile_for(std::string_view command) {
  auto slash = command.rfind('/');
  std::string_view name = slash == std::string_view::npos ? command : command.substr(slash + 1);
  const AgentInfo* agent = find_agent(name);
  return agent != nullptr ? std::string_view(agent->name) : std::string_view();
}

const BuiltinProfile* find_builtin_profile(std::string_view name) {
  for (const auto& p : builtin_profiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace paddock
