// What a run leaves behind where the host runs or trusts it later (issue 12). A Watch is taken
// before the sandbox starts and checked after every sandboxed process is gone; what it finds goes
// to RunResult::left_behind, the footer and the report. The mounts that stop most of this during
// the run are built in src/engine/plan_builder.cc; these checks catch what mounts cannot stop
// (files created where none existed, nested repositories) and say exactly where it is.
#pragma once

#include <vector>

#include "guard/agent_config.h"
#include "guard/git_watch.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::guard {

class Watch {
 public:
  // Before the sandbox starts: what exists now, and from when changes count.
  // MOUNTS: the run's extra mounts (RunOptions::mounts); the writable host-backed ones count too.
  static Watch before(const Policy& policy, const std::vector<SandboxMount>& mounts);
  // After the run: what changed among the watched things, in a stable order.
  std::vector<LeftBehind> after() const;

 private:
  std::vector<ProtectedPath> absent_;  // protected paths that did not exist
  GitWatch git_;
  AgentConfigWatch agent_config_;
};

}  // namespace paddock::guard
