// `paddock run`'s flags, and how they become a library request (paddock/run.h) and its outcome
// printed; shared with `paddock jail exec` (jail::exec: the same request with the jail as its
// project).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/limit_flags.h"
#include "cli/net_flags.h"
#include "cli/policy_flags.h"
#include "cli/undo_run.h"
#include "paddock/run.h"
#include "paddock/sandbox.h"

namespace paddock::cli {

struct RunFlags {
  PolicyFlags policy;
  LimitFlags limits;
  NetFlags net;
  std::vector<std::string> command;
  bool no_diagnostics = false;  // --quiet-footer (or its older name --no-diagnostics)
  bool exec = false;
  bool no_pty = false;
  std::string net_log;  // --net-log FILE
  std::string denials;  // --denials FILE (docs/supervisor.md)
  std::string backend;  // --backend NAME: "" or native is paddock's engine (paddock/jail_backend.h)
  UndoRunFlags undo;    // --undo, --undo-exclude (docs/undo.md)
  std::string undo_max_bytes;  // --undo-max-bytes SIZE (into undo.max_bytes)
};

// Adds run's flags (policy, limits, network, diagnostics, --exec, --no-pty, --net-log) to CMD.
void add_run_flags(CLI::App* cmd, RunFlags& f);
// --backend NAME: one of paddock/jail_backend.h's backends (`bwrap` is taken as bubblewrap).
CLI::Option* add_backend_option(CLI::App* cmd, std::string& backend, const std::string& help);

// F as a library request (paddock/run.h): its flags applied to the policy by the request's
// configure step, undo (cli/undo_run.h) as its wrapper, its lines printed as they are due.
// Errors: --undo-max-bytes or --resolve malformed.
Result<RunRequest> run_request_from(const RunFlags& f);
// What `paddock run` prints once the run is over (the error, or the warnings, what was left
// behind and the footer, then the closing lines); returns the exit code.
int print_run_outcome(const RunOutcome& o, const RunFlags& f);

// Runs F.command under F's flags: run_request_from, run_request, print_run_outcome.
int run_command(const RunFlags& f);

}  // namespace paddock::cli
