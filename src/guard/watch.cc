#include "guard/watch.h"

#include <sys/stat.h>

namespace paddock::guard {

Watch Watch::before(const Policy& policy, const std::vector<SandboxMount>& mounts) {
  Watch w;
  for (const ProtectedPath& p : policy.protected_paths)
    if (!p.exists) w.absent_.push_back(p);
  w.git_ = GitWatch::before(policy, mounts);
  w.agent_config_ = AgentConfigWatch::before(policy);
  return w;
}

std::vector<LeftBehind> Watch::after() const {
  std::vector<LeftBehind> out;
  // Protected paths that did not exist and now do: the host may run them later.
  for (const ProtectedPath& p : absent_) {
    struct stat st;
    if (lstat(p.path.c_str(), &st) == 0) out.push_back({p.path, p.reason, "created by the sandbox: review it before your tools run it"});
  }
  for (LeftBehind& l : git_.after()) out.push_back(std::move(l));
  for (LeftBehind& l : agent_config_.after()) out.push_back(std::move(l));
  return out;
}

}  // namespace paddock::guard
