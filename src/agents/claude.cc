// Claude Code: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

const AgentInfo& claude_agent() {
  static const AgentInfo info = {
      .name = "claude",
      .display_name = "Claude Code",
      // The built-in profile `paddock run -- claude` picks (same schema as user profiles).
      .profile_toml = R"(# Claude Code.
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
)",
      .integration = "a hook that explains refusals to the model, and a CLAUDE.md section",
  };
  return info;
}

}  // namespace paddock
