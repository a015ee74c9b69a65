// `paddock run`'s flags and the run itself, shared with `paddock jail exec` (which runs the same
// way with the jail's workspace as the project and the jail's HOME).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/limit_flags.h"
#include "cli/net_flags.h"
#include "cli/policy_flags.h"
#include "cli/undo_run.h"
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

// What a caller other than `paddock run` changes about a run (a jail).
struct RunExtras {
  // The project: the directory the command starts in, granted read+write as the current
  // directory is (with its protected paths), named by `project_origin`.
  std::string project_dir;
  std::string project_origin;
  // A host directory mounted at HOME instead of the fresh tmpfs ("" keeps the tmpfs).
  std::string home_dir;
  // Mounts at their own paths (an overlay workspace at project_dir).
  std::vector<SandboxMount> mounts;
  // More rules and settings, applied after the profile and the flags.
  std::function<void(PolicyBuilder&)> add;
};

// Runs F.command under F's flags (and EXTRAS when given); returns the exit code.
int run_command(const RunFlags& f, const RunExtras* extras = nullptr);

}  // namespace paddock::cli
