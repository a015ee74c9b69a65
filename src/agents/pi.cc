// pi (pi-coding-agent): what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    // Its directory stays writable (lock directories beside settings.json and auth.json).
    {".pi/agent", ConfigFormat::Data,
     "pi puts bin/ first on the PATH of the commands it runs, loads tools/, themes and prompts, and reads "
     "SYSTEM.md from its directory",
     top({"sessions", "*.lock", "pi-debug.log"})},
    {".pi/agent/settings.json", ConfigFormat::Json,
     "pi loads the packages, extensions and skills and runs the shell and npm commands named here",
     top({"lastChangelogVersion", "defaultProvider", "defaultModel", "defaultThinkingLevel", "transport",
          "steeringMode", "followUpMode", "theme", "compaction", "branchSummary", "retry", "hideThinkingBlock",
          "quietStartup", "collapseChangelog", "enableInstallTelemetry", "enableSkillCommands", "terminal",
          "images", "enabledModels", "doubleEscapeAction", "treeFilterMode", "thinkingBudgets", "editorPaddingX",
          "autocompleteMaxVisible", "showHardwareCursor", "markdown", "warnings"})},
    {".pi/agent/auth.json", ConfigFormat::Json, "pi runs an API key written as \"!command\" to get the key",
     {{{"*", "key"}, true}, key({"*", "*"})}},
    {".pi/agent/models.json", ConfigFormat::Whole,
     "pi runs the \"!command\" API keys and headers of the providers defined here", {}},
    {".pi/agent/extensions", ConfigFormat::Dir, "pi loads every extension here (code run with your rights) at start", {}},
    {".pi/agent/git", ConfigFormat::Dir, "pi loads the packages installed here (extensions, skills) at start", {}},
    {".pi/agent/skills", ConfigFormat::Dir, "pi's skills carry scripts the agent runs", {}},
    {".pi/agent/bin", ConfigFormat::Dir, "pi puts the programs here (fd, rg) first on its commands' PATH", {}},
  };
}

}  // namespace

const AgentInfo& pi_agent() {
  static const AgentInfo info = {
      .name = "pi",
      .display_name = "pi (pi-coding-agent)",
      // The built-in profile `paddock run -- pi` picks (same schema as user profiles).
      .profile_toml = R"(# pi (pi-coding-agent): one agent, many model providers.
extends = "default"
description = "pi: its settings, sessions and logins in ~/.pi, the model providers' APIs"

[filesystem]
# ~/.pi/agent: settings.json, auth.json (provider logins) and sessions. The directory stays
# read+write (pi locks settings.json and auth.json with lock directories beside them). After the
# run, anything in it that is not pi's data (sessions, logs, locks) and was created or changed is
# moved aside, and settings.json and auth.json keep only the keys pi writes itself: packages,
# extensions, "!command" keys and the rest are put back (docs/profiles.md).
allow_if_exists = ["~/.pi/agent"]
# Created before the first run, so that logins made inside are kept.
create = ["~/.pi/agent"]
# Code pi loads at start, which it never writes during a session: extensions, installed packages,
# skills, models.json ("!command" API keys and headers), the programs it puts first on its
# commands' PATH (bin/: fd, rg), tools, prompts, themes, and its system prompt files. Read-only.
read_if_exists = ["~/.pi/agent/extensions", "~/.pi/agent/git", "~/.pi/agent/skills", "~/.pi/agent/models.json",
                  "~/.pi/agent/bin", "~/.pi/agent/tools", "~/.pi/agent/prompts", "~/.pi/agent/themes",
                  "~/.pi/agent/SYSTEM.md", "~/.pi/agent/APPEND_SYSTEM.md", "~/.pi/agent/keybindings.json"]

[network]
# The providers pi talks to out of the box, and their login endpoints. To keep only yours, copy
# this profile to ~/.config/paddock/profiles/pi.toml (it shadows the built-in) and shorten it.
mode = "filtered"
allow = ["api.anthropic.com", "console.anthropic.com", "claude.ai",
         "api.openai.com", "auth.openai.com", "chatgpt.com",
         "generativelanguage.googleapis.com", "oauth2.googleapis.com",
         "openrouter.ai", "api.x.ai", "api.groq.com", "api.mistral.ai", "api.cerebras.ai",
         "api.githubcopilot.com", "api.individual.githubcopilot.com", "github.com", "api.github.com"]

[env]
# Provider keys, passed only when set in the parent.
pass = ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY",
        "OPENROUTER_API_KEY", "XAI_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "CEREBRAS_API_KEY",
        "COPILOT_GITHUB_TOKEN"]
)",
      .project_files = {{".pi", "pi loads the extensions and settings it holds"}},
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
