// goose: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    // Sessions and logs.
    {".local/share/goose", ConfigFormat::Data, "goose runs what it installed in its data directory",
     top({"sessions", "logs", "history*", "*.db", "*.db-wal", "*.db-shm", "*.db-journal"})},
    {".local/state/goose", ConfigFormat::Data, "goose reads its state directory at start", top({"logs", "*.log"})},
  };
}

}  // namespace

const AgentInfo& goose_agent() {
  static const AgentInfo info = {
      .name = "goose",
      .display_name = "goose",
      // The built-in profile `paddock run -- goose` picks (same schema as user profiles).
      .profile_toml = R"(# goose (Block's goose CLI).
extends = "default"
description = "goose: its sessions and logs, the model providers' APIs"

[filesystem]
# Sessions and logs. After the run, anything else created or changed in them is moved aside.
allow_if_exists = ["~/.local/share/goose", "~/.local/state/goose"]
create = ["~/.local/share/goose"]
# config.yaml names extensions: commands the host runs later. Read-only.
read_if_exists = ["~/.config/goose"]

[network]
# The providers goose talks to most often.
mode = "filtered"
allow = ["api.anthropic.com", "api.openai.com", "openrouter.ai", "generativelanguage.googleapis.com",
         "api.groq.com"]

[env]
# Provider selection and keys, passed only when set in the parent.
pass = ["GOOSE_PROVIDER", "GOOSE_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
        "GOOGLE_API_KEY", "GROQ_API_KEY"]
# No desktop keyring is reachable from inside: keys come from the environment or secrets.yaml.
set = { GOOSE_DISABLE_KEYRING = "1" }
)",
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
