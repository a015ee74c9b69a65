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
allow = ["api.anthropic.com", "console.anthropic.com", "statsig.anthropic.com", "claude.ai"]

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
  };
  return profiles;
}

const BuiltinProfile* find_builtin_profile(std::string_view name) {
  for (const auto& p : builtin_profiles()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace paddock
