// The real Executor: every call runs in its own paddock sandbox (paddock::start), with a fresh
// writable workspace, the system read-only, the project (if any) read-only, no network unless
// the environment allows it, and the environment's memory, pids, time and output limits.
// Warm pool: for environments whose launcher reads the code from stdin, sandboxes are started
// ahead of time with the interpreter already running and waiting; each serves exactly one call
// and is then thrown away, so no state passes between calls.
#pragma once

#include <memory>
#include <string>

#include "mcp/config.h"
#include "mcp/executor.h"

namespace paddock::mcp {

struct SandboxExecutorOptions {
  std::string project;    // host directory visible read-only; "" for none
  std::string state_dir;  // parent for workspaces; default: $TMPDIR or /tmp
  bool warm = true;       // keep Environment::warm sandboxes ready per environment
};

class SandboxExecutor;
Result<std::shared_ptr<Executor>> make_sandbox_executor(const Config& config,
                                                        SandboxExecutorOptions options);

}  // namespace paddock::mcp
