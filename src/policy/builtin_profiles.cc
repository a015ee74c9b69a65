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
# ~/.claude read-only: Claude Code runs what it holds on the host later — settings.json (hooks,
# apiKeyHelper, statusLine), the scripts the settings name (a statusLine script), hooks, plugins,
# commands, agents, skills, and the local install (~/.claude/local) the `claude` alias starts.
read_if_exists = ["~/.claude", "~/.config/claude"]
# Read+write: only what Claude Code writes there itself — session transcripts, shell snapshots,
# todos, file checkpoints, plans, the .claude.json backups, telemetry it could not send, caches,
# the prompt history and the login. Each is checked again after the run, with ~/.claude
# (docs/profiles.md: anything else created or changed there is moved aside).
allow_if_exists = ["~/.claude/projects", "~/.claude/session-env", "~/.claude/sessions", "~/.claude/shell-snapshots",
                   "~/.claude/todos", "~/.claude/file-history", "~/.claude/backups", "~/.claude/telemetry",
                   "~/.claude/statsig", "~/.claude/plans", "~/.claude/debug", "~/.claude/paste-cache",
                   "~/.claude/image-cache", "~/.claude/tasks", "~/.claude/usage-data", "~/.claude/uploads",
                   "~/.claude/history.jsonl", "~/.claude/.credentials.json", "~/.claude.json"]
# Created before the first run, so that they can be granted (a mount needs something to bind) and
# what Claude Code writes inside, the login included, is kept. ~/.claude/plugins too, so that it
# exists to be read-only: Claude Code 2.1 writes usage counters to plugins/store/ at every start and
# runs fine without (found by tests/agents).
create = ["~/.claude", "~/.claude/plugins", "~/.claude/projects", "~/.claude/session-env", "~/.claude/sessions",
          "~/.claude/shell-snapshots", "~/.claude/todos", "~/.claude/file-history", "~/.claude/backups",
          "~/.claude/telemetry", "~/.claude/plans", "~/.claude/debug", "~/.claude/paste-cache",
          "~/.claude/image-cache", "~/.claude/tasks", "~/.claude/usage-data", "~/.claude/uploads"]
# ~/.claude.json (onboarding, account and per-project state) must exist before the run to be
# granted: without it, what Claude Code writes there inside is lost and the next run starts over
# ("configuration file not found"). An empty JSON object is what Claude Code accepts as new; so are
# an empty prompt history and an empty login. ~/.claude.json is checked after the run key by key:
# only the keys Claude Code writes as its own state are kept (docs/profiles.md).
create_files = { "~/.claude.json" = "{}", "~/.claude/history.jsonl" = "", "~/.claude/.credentials.json" = "{}" }

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
# Settings, login, databases and session history Codex keeps in HOME. The directory itself stays
# read+write: Codex's SQLite databases keep their journals beside them. After the run, anything
# in it that is not Codex's data (sessions, logs, databases, login) and was created or changed is
# moved aside — a .env it would load, skills, prompts — and config.toml, which Codex writes itself
# (the model, notices), keeps only those keys: any other change (notify, MCP servers, telemetry
# exporters, project trust, ...) restores the previous file (docs/profiles.md).
allow_if_exists = ["~/.codex"]
# What Codex runs or trusts on the host later and never needs to write inside: the commands its
# rules allow without asking, skills (scripts), prompts, instructions, its .env. Read-only.
read_if_exists = ["~/.codex/rules", "~/.codex/policy", "~/.codex/skills", "~/.codex/prompts", "~/.codex/AGENTS.md",
                  "~/.codex/.env", "~/.codex/hooks.json", "~/.codex/plugins"]
# Created before the first run, so that the login made inside is kept; skills/ too, so that it is
# read-only from the first run on: Codex installs its bundled skills there at every start, which
# the check after the run would otherwise move aside each time (it runs fine without: tests/agents).
create = ["~/.codex", "~/.codex/skills"]

[network]
# Only the OpenAI API and login endpoints.
mode = "filtered"
allow = ["api.openai.com", "auth.openai.com", "chatgpt.com"]

[env]
# API credentials and endpoint selection, passed only when set in the parent.
pass = ["OPENAI_API_KEY", "OPENAI_BASE_URL"]

[command]
# Settings Codex reads from its command line, put right after "codex" so that they apply inside
# paddock only (~/.codex/config.toml is not touched) and anything you type after them wins.
name = "codex"
args = [
  # Codex runs each command in its own bubblewrap sandbox, which cannot start inside paddock's
  # (nested user namespaces are refused): every command would fail while Codex reports success.
  # paddock is its sandbox.
  "-c", 'sandbox_mode="danger-full-access"',
  # At start Codex syncs its plugin marketplace from github.com and api.github.com and sends
  # analytics to ab.chatgpt.com: blocked here, so turned off rather than refused every run.
  "-c", "features.plugins=false",
  "-c", "analytics.enabled=false",
  # The update check (api.github.com) of the interactive start.
  "-c", "check_for_update_on_startup=false",
]
# Codex's own sandbox chosen on the command line wins over the line above, and fails.
conflicts = ["-s read-only", "-s workspace-write", "--sandbox read-only", "--sandbox workspace-write"]
conflict_message = "Codex's own sandbox (bubblewrap) cannot start inside paddock (nested user namespaces are refused): every command Codex runs will fail with \"bwrap: No permissions to create new namespace\" while it reports success. paddock is its sandbox: leave the sandbox choice to the codex profile (it sets sandbox_mode = \"danger-full-access\" for runs inside paddock only)."
)"},
      {"pi", R"(# pi (pi-coding-agent): one agent, many model providers.
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
)"},
      {"aider", R"(# aider (aider-chat).
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
)"},
      {"gemini", R"(# Gemini CLI (@google/gemini-cli).
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
)"},
      {"opencode", R"(# opencode.
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
)"},
      {"goose", R"(# goose (Block's goose CLI).
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
)"},
  };
  return profiles;
}

std::string_view agent_profile_for(std::string_view command) {
  auto slash = command.rfind('/');
  std::string_view name = slash == std::string_view::npos ? command : command.substr(slash + 1);
  for (std::string_view agent : {"claude", "codex", "pi", "aider", "gemini", "opencode", "goose"}) {
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
