// A command line's run (issue 27): what `paddock run` and `paddock jail exec` do between their
// flags and their printing, as one library call an IDE, an agent framework or the MCP server can
// make too.
//
// What this owns: the steps around the engine's run() (paddock/sandbox.h) that a command line
// needs: a profile's state directories and files created in HOME, the grants of a linked git
// worktree, paddock's own state directory made before the policy applies, the agent profile's
// [command] arguments, the backend (paddock/jail_backend.h), the egress filter's decision log,
// the guard of the repository the project works in (src/jail/repository_run.h), a wrapper around
// the run (undo's snapshots) and the run report. What it may not touch: the terminal. Nothing
// here prints; the lines a person should read come back through RunRequest::say (as they are
// due) and in RunOutcome, raw: the caller prints them through its escaping printer.
//
// Why not in paddock/sandbox.h: that is the engine's face (a Policy and RunOptions in, a
// RunResult out, no state on the host). This adds host-side state and the jail layer's
// repository guard and backends, so it lives with them in src/jail/ (src/jail/run.cc).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock {

// Where the caller's configure step is: the host (its cwd is the project's) and, in a jail, the
// jail's profile (used when the caller names none).
struct ConfigureContext {
  const HostContext& host;
  std::string_view jail_profile;
  bool home_kept = false;  // HOME is a jail's, kept between runs (not a fresh tmpfs)
};

// Something that wraps a run (the command line's undo snapshots, src/cli/undo_run.h). Used only
// when RunRequest::undo is set or the profile's [undo] table enables it; a native run asked for
// undo without a wrapper is refused (nothing would take the snapshots the user counts on).
struct RunWrapper {
  // Before the sandbox exists, with the policy built: it may add mounts and descriptors to OPTS
  // and environment to POLICY. `profile` is the profile's [undo] table.
  std::function<void(const UndoSettings& profile, const HostContext& host, Policy& policy, RunOptions& opts)> before;
  // After the sandbox is gone (the run succeeded): the lines to say.
  std::function<std::vector<std::string>()> after;
};

// A project other than the current directory: a jail's workspace.
struct RunProject {
  std::string dir;     // the directory the command starts in, granted read+write as the cwd is
  std::string origin;  // names the grant ("jail NAME (copy workspace)")
  std::string profile;  // the jail's profile: ConfigureContext::jail_profile
  // A host directory mounted at HOME instead of the fresh tmpfs ("" keeps the tmpfs).
  std::string home_dir;
  // Mounts at their own paths (an overlay workspace at `dir`, a repository's private objects).
  std::vector<SandboxMount> mounts;
  // More rules and settings, applied after the profile and the caller's configure step.
  std::function<void(PolicyBuilder&)> add;
};

struct RunRequest {
  std::vector<std::string> command;
  // "" or "native": paddock's engine; else one of paddock/jail_backend.h's backends.
  std::string backend;
  bool exec = false;  // replace this process with the command (exec_in_place): no parent stays
  bool pty = true;
  std::string net_log;  // "": none; else the file each egress decision is appended to
  std::string denials;  // "": none; else the file each refusal is appended to (paddock.denial/1)
  std::string report;   // "": none; else the file the run report is written to
  bool undo = false;    // undo asked for by the caller (a profile's [undo] enabled asks too)
  RunWrapper wrapper;   // what undo does around the run
  // Test-only name map for the egress filter (net::EgressOptions::resolve).
  std::vector<std::pair<std::string, std::string>> test_resolve;
  // The caller's profile, flags and limits, applied to the builder first (an error here is the
  // request's: exit 2).
  std::function<Result<void>(PolicyBuilder&, const ConfigureContext&)> configure;
  std::optional<RunProject> project;  // a jail's workspace; none: the current directory
  // Set: a profile's state directories and files in HOME ([filesystem] create) are not made, and
  // this says why (the agent the profile is for is not installed: nothing is left on the host).
  std::string skip_profile_state_because;
  // Lines to say as they are due, before the command runs and after it ([paddock] lines, raw).
  std::function<void(const std::vector<std::string>&)> say;
};

// How a run ended. `error` set: it did not run or did not finish (exit_code 2 for a request that
// is wrong, 125 when the sandbox could not be set up, 1 for a jail that refused it).
struct RunOutcome {
  int exit_code = 0;
  std::optional<Error> error;
  std::optional<RunResult> result;  // a native run that happened
  std::optional<Policy> policy;     // once built
  std::vector<std::string> command;  // what ran (with the profile's [command] arguments)
  // The user's command-line choices that cannot work inside ([command] conflicts), said before
  // the run (through `say`) and again after it, with the run's own warnings.
  std::vector<std::string> command_warnings;
  bool footer_quiet = false;           // the profile's [footer] quiet
  std::string home_from;               // the host directory mounted at HOME, when not a fresh one
  std::optional<Error> report_error;   // --report could not be written (the run itself finished)
  // Lines to say after everything else the caller prints about the run (a jail's repository
  // guard, after its footer).
  std::vector<std::string> closing;
};

// Builds the policy (configure, then the project's and paddock's own additions), runs the command
// with the backend asked for, and returns how it ended. Never throws; every failure is in
// RunOutcome::error with its exit code.
RunOutcome run_request(RunRequest req);

}  // namespace paddock
