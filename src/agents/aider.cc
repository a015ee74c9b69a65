// aider: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    // aider: caches and its install record; oauth-keys.env (loaded into its environment at
    // start, where AIDER_* settings name commands) is not its data.
    {".aider", ConfigFormat::Data, "aider loads oauth-keys.env into its environment (AIDER_* settings run commands)",
     top({"caches", "analytics.json", "installs.json"})},
  };
}

}  // namespace

const AgentInfo& aider_agent() {
  static const AgentInfo info = {
      .name = "aider",
      .display_name = "aider",
      // The built-in profile `paddock run -- aider` picks (same schema as user profiles).
      .profile_toml = R"(# aider (aider-chat).
extends = "default"
description = "aider: its caches and history in ~/.aider, the model providers' APIs"

[filesystem]
# Model metadata caches, analytics id, install record. After the run, anything else created or
# changed in ~/.aider (its oauth-keys.env, loaded into aider's environment at start) is moved aside.
allow_if_exists = ["~/.aider"]
create = ["~/.aider"]
# The user's aider settings; read-only, so a run cannot change what the next one does.
read_if_exists = ["~/.aider.conf.yml", "~/.aider.model.settings.yml", "~/.aider.model.metadata.json"]

[network]
# The providers aider talks to most often. Copy this profile to shorten it to yours.
mode = "filtered"
allow = ["api.openai.com", "api.anthropic.com", "openrouter.ai", "generativelanguage.googleapis.com",
         "api.deepseek.com", "api.groq.com", "api.mistral.ai", "api.x.ai"]

[env]
# Provider keys, passed only when set in the parent.
pass = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY",
        "GROQ_API_KEY", "MISTRAL_API_KEY", "XAI_API_KEY", "OPENAI_API_BASE", "AIDER_MODEL"]
# The update check (pypi.org) and analytics would only be blocked; litellm's model price map is
# read from the copy it ships instead of fetched.
set = { AIDER_CHECK_UPDATE = "false", AIDER_ANALYTICS = "false", LITELLM_LOCAL_MODEL_COST_MAP = "True" }
)",
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
