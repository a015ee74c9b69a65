// Codex CLI: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    // Its directory stays writable (SQLite journals beside its databases); config.toml is
    // rewritten by codex itself (the model, notices): any other change restores the previous
    // file whole (a TOML rewrite would lose the user's comments).
    {".codex", ConfigFormat::Data,
     "codex reads its environment (.env), skills, prompts and instructions from its directory",
     top({"sessions", "archived_sessions", "log", "shell_snapshots", "thread-writer-locks",
          "tui-thread-reference-capabilities", "auth.json",
          "auth.json.lock", "auth.lock", "installation_id", ".sandbox_migration", "*.sqlite", "*.sqlite-wal",
          "*.sqlite-shm", "*.sqlite-journal", "history.jsonl", "version.json", "models_cache.json"})},
    {".codex/config.toml", ConfigFormat::Toml,
     "codex runs the notify command, MCP servers and telemetry exporters named here, and follows its approval, "
     "sandbox, provider and project-trust settings",
     top({"model", "model_reasoning_effort", "plan_mode_reasoning_effort", "notice",
          "windows_wsl_setup_acknowledged"}) +
         std::vector<ConfigKey>{key({"tui", "screen_reader_detection_done"}), key({"tui", "model_availability_nux"})}},
    {".codex/rules", ConfigFormat::Dir, "codex runs the commands its rules allow outside its sandbox without asking",
     {}},
    {".codex/policy", ConfigFormat::Dir, "codex runs the commands its execpolicy (older rules) allows without asking",
     {}},
  };
}

}  // namespace

const AgentInfo& codex_agent() {
  static const AgentInfo info = {
      .name = "codex",
      .display_name = "Codex CLI",
      // The built-in profile `paddock run -- codex` picks (same schema as user profiles).
      .profile_toml = R"(# OpenAI Codex CLI.
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
)",
      .integration = AgentIntegration{.summary = "an AGENTS.md section", .dir = ".codex", .instructions_file = "AGENTS.md"},
      .project_files = {{".codex", "Codex reads project config (MCP servers, notify) from it"}},
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
