// What a run leaves behind where the host runs or trusts it later (issue 12). A Watch is taken
// before the sandbox starts and checked after every sandboxed process is gone; what it finds is
// moved aside where that is safe and goes to RunResult::left_behind, stderr and the report. The
// mounts that stop most of this during the run are built in src/engine/plan_builder.cc; these
// checks catch what mounts cannot stop (files created where none existed, nested repositories,
// everything in the fallback, which has no mounts) and say exactly where it was.
#pragma once

#include <time.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gate/agent_config.h"
#include "gate/tree_watch.h"
#include "gate/quarantine.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::gate {

// What a Watch looks at, when it is not taken from a run's policy (gate::Check::before_write).
struct WatchSpec {
  std::vector<std::string> writable;              // areas walked (tree_watch.h)
  std::vector<ProtectedPath> protected_paths;     // absolute
  std::vector<std::string> homes;                 // HOMEs whose agents' config is checked
};

// Paths left alone by after() (content paddock trusts); empty: none.
using TrustedPath = std::function<bool(const std::string& path)>;

class Watch {
 public:
  // Before the sandbox starts: from when changes count. MOUNTS: the run's extra mounts
  // (RunOptions::mounts); the writable host-backed ones are watched too. INDEX: where the walk of
  // the writable trees keeps what it listed between runs (tree_watch.h).
  static Watch before(const Policy& policy, const std::vector<SandboxMount>& mounts, IndexPlace index = {});
  static Watch before(const WatchSpec& spec);
  // After the run: what changed among the watched things, in a stable order. COST, when given,
  // says what the walk of the writable trees read.
  std::vector<LeftBehind> after(const TrustedPath& trusted = {}, WalkCost* cost = nullptr) const;
  // Regular files in the writable host-backed areas that the run wrote and that are exactly SIZE
  // bytes long: where --max-file-size stopped a write (RLIMIT_FSIZE cuts a write at the limit).
  // At most MAX paths; at most 1,000,000 entries visited.
  std::vector<std::string> files_at_size(std::uint64_t size, std::size_t max) const;

 private:
  // Protected paths (src/policy/protected_paths.cc): one created by the run, or anything in one
  // changed by it (the fallback cannot keep them read-only), is moved aside.
  void check_protected(const ProtectedPath& p, const TrustedPath& trusted, std::vector<LeftBehind>& out) const;

  std::vector<ProtectedPath> protected_;
  Baseline base_;  // what the existing protected paths held before the run
  TreeWatch tree_;
  std::vector<AgentConfigWatch> agent_config_;
};

}  // namespace paddock::gate
