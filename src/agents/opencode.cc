// opencode: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    // opencode: its data directory holds its sessions and logins; bin/ is code.
    {".local/share/opencode", ConfigFormat::Data, "opencode runs what it installed in its data directory",
     top({"auth.json", "storage", "snapshot", "log", "project", "tool-output", "mcp-auth.json"})},
    {".local/share/opencode/bin", ConfigFormat::Dir,
     "opencode runs the programs it downloaded here (ripgrep, language servers)", {}},
    {".local/state/opencode", ConfigFormat::Data, "opencode reads its state directory at start",
     top({"*.json", "*.jsonl", "log", "tui"})},
  };
}

}  // namespace

const AgentInfo& opencode_agent() {
  static const AgentInfo info = {
      .name = "opencode",
      .display_name = "opencode",
      // The built-in profile `paddock run -- opencode` picks (same schema as user profiles).
      .profile_toml = R"(# opencode.
extends = "default"
description = "opencode: its logins and sessions in ~/.local/share/opencode, the model providers' APIs"

[filesystem]
# auth.json (provider logins), sessions and snapshots. After the run, anything else created or
# changed in them is moved aside.
allow_if_exists = ["~/.local/share/opencode", "~/.local/state/opencode"]
# Created before the first run, so that logins made inside are kept.
create = ["~/.local/share/opencode"]
# opencode.json (MCP servers, plugins), the provider packages it installed, and the programs it
# downloaded into bin/ (ripgrep, language servers) run on the host later: read-only, so a run
# cannot plant code there.
read_if_exists = ["~/.config/opencode", "~/.cache/opencode", "~/.local/share/opencode/bin"]

[network]
# The model catalogue, the npm registry it installs provider packages from, its own provider,
# and the providers most used with it.
mode = "filtered"
allow = ["models.dev", "registry.npmjs.org", "opencode.ai", "api.anthropic.com", "api.openai.com",
         "openrouter.ai", "generativelanguage.googleapis.com"]

[env]
# Provider keys, passed only when set in the parent.
pass = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "OPENCODE_CONFIG"]
# The self-update would only be blocked.
set = { OPENCODE_DISABLE_AUTOUPDATE = "1" }
)",
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
