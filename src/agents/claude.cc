// Claude Code: what paddock knows about it (docs/profiles.md, "Adding an agent").
#include "agents/agent.h"

namespace paddock {

namespace {

using namespace config_keys;

// ~/.claude.json: Claude Code's state (written at every start). Not here, so put back: the MCP
// servers it starts (mcpServers, projects.*.mcpServers, *McpjsonServers, enableAllProjectMcpServers,
// mcpContextUris), what it trusts (projects.*.allowedTools, hasTrustDialogAccepted,
// hasClaudeMdExternalIncludesApproved, bypassPermissionsModeAccepted), the commands and
// environment it runs with (apiKeyHelper, env, diffTool), how it is installed and updated
// (installMethod, autoUpdates*), and what it connects or uploads (autoConnectIde,
// autoInstallIdeExtension, claudeInChrome*, remoteControl*, autoUploadSessions,
// autoAddRemoteControlDaemonWorker, lspRecommendation*).
std::vector<ConfigKey> claude_json() {
  return top({// counters, identifiers, migrations, caches it fills itself
              "numStartups", "firstStartTime", "firstStartVersion", "machineID", "userID", "anonymousId",
              "migrationVersion", "*MigrationComplete", "seenNotifications", "hasResetAutoModeOptInForDefaultOffer",
              "pluginUsage", "skillUsage", "tip*", "*UseCount", "*UsageCount", "*HintCount",
              "closedIssuesLastChecked", "officialMarketplaceAutoInstall*",
              "subscriptionNoticeCount", "hasSeen*", "hasUsed*", "hasCompletedOnboarding", "lastOnboardingVersion",
              "lastReleaseNotesSeen", "changelogLastFetched", "cachedChangelog", "cachedStatsigGates",
              "cachedDynamicConfigs", "cachedFeatureFlags", "cachedGrowthBookFeatures",
              "fallbackAvailableWarningThreshold", "hasAvailableSubscription", "recommendedSubscription",
              "isQualifiedForDataSharing", "s1mAccessCache", "s1mNonSubscriberAccessCache", "feedbackSurveyState",
              "hasAcknowledgedCostThreshold", "hasIdeOnboardingBeenShown", "hasIdeAutoConnectDialogBeenShown",
              "claudeCodeFirstTokenDate", "lastPlanModeUse", "passesEligibilityCache", "githubRepoPaths",
              // the login and the API key approval it asks for
              "oauthAccount", "primaryApiKey", "customApiKeyResponses",
              // display and editing preferences (/config)
              "theme", "verbose", "editorMode", "preferredNotifChannel", "shiftEnterKeyBindingInstalled",
              "hasUsedBackslashReturn", "autoCompactEnabled", "autoScrollEnabled", "showTurnDuration",
              "externalEditorContext", "showMessageTimestamps", "todoFeatureEnabled", "showExpandedTodos",
              "briefTranscript", "diffSidebarOpen", "messageIdleNotifThresholdMs", "fileCheckpointingEnabled",
              "terminalProgressBarEnabled", "showStatusInTerminalTab", "taskCompleteNotifEnabled",
              "inputNeededNotifEnabled", "agentPushNotifEnabled", "respectGitignore", "copyFullResponse",
              "copyOnSelect", "leftArrowOpensAgents", "defaultToAgentsView", "prStatusFooterEnabled",
              "remoteDialogSeen", "workflowSizeGuideline"}) +
         under("projects", {"last*", "exampleFiles", "exampleFilesGeneratedAt", "hasCompletedProjectOnboarding",
                            "projectOnboardingSeenCount", "hasClaudeMdExternalIncludesWarningShown",
                            "reactVulnerabilityCache", "history"});
}

// Its configuration in HOME that the host runs later (AgentInfo::home_config).
std::vector<KnownConfig> home_config() {
  return {
    {".claude", ConfigFormat::Data,
     "Claude Code runs what its directory holds: the local-install launcher the `claude` alias starts "
     "(local/), the scripts its settings name (a statusLine script), hooks, plugins, commands, skills",
     // Its state, as Claude Code itself lists it (the entries it leaves out of a snapshot of its
     // configuration), less what runs or configures something: local/, ide/, chrome/, downloads/,
     // daemon/, systemd/, remote*, *-settings*, policy-limits.json, loop.md, mcp-skill-archives/.
     top({"projects", "session-env", "sessions", "shell-snapshots", "todos", "file-history", "backups",
          "telemetry", "statsig", "plans", "debug", "logs", "traces", "startup-perf", "paste-cache",
          "image-cache", "tasks", "usage-data", "uploads", "shares", "feedback", "feedback-bundles",
          "dump-prompts", "api-dumps", "file-transfers", "scratch", "history.jsonl", ".credentials.json",
          ".session_ingress_token", "hfi-auth.json", ".claude.json.backup", "stats-cache.json",
          "active-time.json", "mcp-needs-auth-cache.json", "gh-pr-status-cache.json", "computer-use.lock",
          "security_warnings_state_*"})},
    {".claude.json", ConfigFormat::Json,
     "Claude Code starts the MCP servers listed here, runs its apiKeyHelper and env, and trusts the projects and "
     "tools approved here, when you run it outside paddock",
     claude_json()},
    {".claude/settings.json", ConfigFormat::Whole,
     "Claude Code runs the hooks, apiKeyHelper, statusLine and other commands its settings name", {}},
    {".claude/hooks", ConfigFormat::Dir, "holds the hook scripts Claude Code's settings run", {}},
    {".claude/plugins", ConfigFormat::Dir, "Claude Code loads plugins' hooks, MCP servers and commands from here", {}},
    {".claude/commands", ConfigFormat::Dir, "Claude Code's slash commands run the shell lines (!`...`) they hold", {}},
    {".claude/agents", ConfigFormat::Dir, "Claude Code's subagents carry their own hooks and tool grants", {}},
    {".claude/skills", ConfigFormat::Dir, "Claude Code's skills carry scripts, hooks and tool grants", {}},
  };
}

}  // namespace

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
      .integration = AgentIntegration{.summary = "a hook that explains refusals to the model, and a CLAUDE.md section",
                                      .dir = ".claude",
                                      .instructions_file = "CLAUDE.md",
                                      .claude_code_hook = true},
      .project_files = {{".claude/settings.json", "Claude Code runs the hooks and statusLine it names, and takes its permissions"},
       {".claude/settings.local.json", "Claude Code runs the hooks it names, and takes its permissions"},
       {".claude/hooks", "hook scripts Claude Code's settings run"},
       {".mcp.json", "Claude Code starts the MCP servers it lists"}},
      .home_config = home_config(),
  };
  return info;
}

}  // namespace paddock
