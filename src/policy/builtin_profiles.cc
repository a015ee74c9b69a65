// Built-in profiles. Each grants what one agent needs beyond the default policy and nothing more;
// every line says why. Paths that may be absent use the *_if_exists lists.
#include "policy/builtin_profiles.h"

namespace paddock {

const std::vector<BuiltinProfile>& builtin_profiles() {
  static const std::vector<BuiltinProfile> profiles = {
      {"default", R"(# The default policy: the project (cwd) read+write, the system read-only,
# a fresh empty HOME, a private /tmp, no network, a scrubbed environment.
description = "project read+write, system read-only, empty HOME, no network"
)"},
      {"claude", R"(# Claude Code.
extends = "default"
description = "Claude Code: its settings and sessions in HOME, the Anthropic API"

[filesystem]
# Settings, credentials, session history and the project list Claude Code keeps in HOME.
allow_if_exists = ["~/.claude", "~/.claude.json", "~/.config/claude"]

[network]
# Only the Anthropic API and login endpoints.
mode = "filtered"
allow = ["api.anthropic.com", "console.anthropic.com", "platform.claude.com", "statsig.anthropic.com",
         "claude.ai"]

[env]
# API credentials and endpoint selection, passed only when set in the parent.
pass = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"]
)"},
      {"codex", R"(# OpenAI Codex CLI.
extends = "default"
description = "Codex CLI: its settings and sessions in HOME, the OpenAI API"

[filesystem]
# Settings, login and session history Codex keeps in HOME.
allow_if_exists = ["~/.codex"]

[network]
# Only the OpenAI API and login endpoints.
mode = "filtered"
allow = ["api.openai.com", "auth.openai.com", "chatgpt.com"]

[env]
# API credentials and endpoint selection, passed only when set in the parent.
pass = ["OPENAI_API_KEY", "OPENAI_BASE_URL"]
)"},
      {"pi", R"(# pi (pi-coding-agent): one agent, many model providers.
extends = "default"
description = "pi: its settings, sessions and logins in ~/.pi, the model providers' APIs"

[filesystem]
# settings.json, auth.json (provider logins), sessions, extensions and skills.
allow_if_exists = ["~/.pi"]

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
)"},
  };
  return profiles;
}

std::string_view agent_profile_for(std::string_view command) {
  auto slash = command.rfind('/');
  std::string_view name = slash == std::string_view::npos ? command : command.substr(slash + 1);
  for (std::string_view agent : {"claude", "codex", "pi"}) {
    if (name == agent && find_builtin_profile(agent) != nullptr) return agent;
  }
  return {};
}

const BuiltinProfile* find_builtin_profile(std::string_view name) {
  for (const auto& p : builtin_profiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace paddock
