// Gemini CLI: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    // Gemini CLI: read-only in its profile but for its logins and chat history.
    {".gemini", ConfigFormat::Data,
     "Gemini CLI runs the MCP servers, hooks and extensions its settings name and loads its .env",
     top({"oauth_creds.json", "google_accounts.json", "tmp", "installation_id", "user_id"})},
  };
}

}  // namespace

const AgentInfo& gemini_agent() {
  static const AgentInfo info = {
      .name = "gemini",
      .display_name = "Gemini CLI",
      // The built-in profile `paddock run -- gemini` picks (same schema as user profiles).
      .profile_toml = R"(# Gemini CLI (@google/gemini-cli).
extends = "default"
description = "Gemini CLI: its login and chat checkpoints in ~/.gemini, the Gemini APIs"

[filesystem]
# settings.json (MCP servers, hooks), extensions and commands run on the host later: read-only.
read_if_exists = ["~/.gemini"]
# Login tokens it refreshes, and its per-project chat history and checkpoints: its data, and
# nothing else (checked again after the run).
allow_if_exists = ["~/.gemini/oauth_creds.json", "~/.gemini/google_accounts.json", "~/.gemini/tmp"]

[network]
# The Gemini API, Code Assist (Google-account login) and the token endpoint.
mode = "filtered"
allow = ["generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"]

[env]
# API keys and project selection, passed only when set in the parent.
pass = ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GENAI_USE_VERTEXAI", "GEMINI_MODEL"]
)",
      .project_files = {{".gemini", "Gemini CLI starts the MCP servers and runs the hooks and extensions its settings name"}},
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
