// `paddock integrate AGENT`: changes, once and reversibly, an agent's own files outside any
// project so that the agent explains paddock's refusals to its model (issue 13). Never called by
// `run`: a sandbox never changes files outside its project this way.
//
// What is installed for each agent is its registration's `integration` (src/agents/NAME.cc):
// - a managed section in the file the agent puts before its model (~/.claude/CLAUDE.md,
//   ~/.codex/AGENTS.md), explaining paddock's refusals and the flags to ask for;
// - for Claude Code, also a PostToolUse / PostToolUseFailure hook (~/.claude/hooks/paddock-hook.sh)
//   that, when a tool failed inside paddock with a sandbox-looking error, feeds the model the
//   policy and the flag to ask the user for (stderr + exit 2: what Claude Code shows its model).
// Every file is written whole through a directory descriptor opened with no symlink followed
// (temp file, fsync, rename); a settings file that does not parse is refused, not overwritten.
#pragma once

#include <string>
#include <vector>

#include "paddock/result.h"

namespace paddock::integrate {

struct Change {
  std::string path;
  std::string what;  // "installed", "registered in hooks.PostToolUse", "removed", "already there"
};

// The agents integrate knows.
std::vector<std::string> agents();

// Installs (or with REMOVE takes back) the integration for AGENT under HOME. Idempotent both ways.
Result<std::vector<Change>> apply(const std::string& agent, const std::string& home, bool remove);

// The hook script installed for Claude Code (for tests).
const std::string& claude_hook_script();

// TEXT with the managed section (between the paddock markers) set to BODY, or removed when BODY
// is empty; the rest of TEXT is kept as it was.
std::string with_managed_section(const std::string& text, const std::string& body);

}  // namespace paddock::integrate
