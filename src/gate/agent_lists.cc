// The agents' configuration that the host runs later, and what each agent may change in it
// (gate/agent_config.h says how each format is checked). Allowlists: what is not named here is
// put back after a run, so a key or file an agent adds in a later version shows up as "put back"
// until it is listed — never as something the host runs unasked. Each entry was found in the
// agent itself: Claude Code's and codex's binaries and pi's sources at the versions
// tests/agents/package-lock.json pins, and the files each writes in tests/agents' runs.
#include "gate/agent_config.h"

namespace paddock::gate {
namespace {

// Key paths (JSON/TOML) or entry names (Data), each component a glob pattern (fnmatch).
ConfigKey key(std::initializer_list<const char*> p) { return {std::vector<std::string>(p.begin(), p.end()), false}; }
std::vector<ConfigKey> top(std::initializer_list<const char*> names) {
  std::vector<ConfigKey> out;
  for (const char* n : names) out.push_back(key({n}));
  return out;
}
std::vector<ConfigKey> under(const char* parent, std::initializer_list<const char*> names) {
  std::vector<ConfigKey> out;
  for (const char* n : names) out.push_back(key({parent, "*", n}));
  return out;
}
std::vector<ConfigKey> operator+(std::vector<ConfigKey> a, const std::vector<ConfigKey>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

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

}  // namespace

const std::vector<KnownConfig>& known_agent_configs() {
  static const std::vector<KnownConfig> known = {
      // Claude Code.
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
      // codex. Its directory stays writable (SQLite journals beside its databases); config.toml is
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
      // pi. Its directory stays writable (lock directories beside settings.json and auth.json).
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
      // aider: caches and its install record; oauth-keys.env (loaded into its environment at
      // start, where AIDER_* settings name commands) is not its data.
      {".aider", ConfigFormat::Data, "aider loads oauth-keys.env into its environment (AIDER_* settings run commands)",
       top({"caches", "analytics.json", "installs.json"})},
      // Gemini CLI: read-only in its profile but for its logins and chat history.
      {".gemini", ConfigFormat::Data,
       "Gemini CLI runs the MCP servers, hooks and extensions its settings name and loads its .env",
       top({"oauth_creds.json", "google_accounts.json", "tmp", "installation_id", "user_id"})},
      // opencode: its data directory holds its sessions and logins; bin/ is code.
      {".local/share/opencode", ConfigFormat::Data, "opencode runs what it installed in its data directory",
       top({"auth.json", "storage", "snapshot", "log", "project", "tool-output", "mcp-auth.json"})},
      {".local/share/opencode/bin", ConfigFormat::Dir,
       "opencode runs the programs it downloaded here (ripgrep, language servers)", {}},
      {".local/state/opencode", ConfigFormat::Data, "opencode reads its state directory at start",
       top({"*.json", "*.jsonl", "log", "tui"})},
      // goose: sessions and logs.
      {".local/share/goose", ConfigFormat::Data, "goose runs what it installed in its data directory",
       top({"sessions", "logs", "history*", "*.db", "*.db-wal", "*.db-shm", "*.db-journal"})},
      {".local/state/goose", ConfigFormat::Data, "goose reads its state directory at start", top({"logs", "*.log"})},
  };
  return known;
}

}  // namespace paddock::gate
