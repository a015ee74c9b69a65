// Placeholder resource control: rlimits only (core dumps off). Issue 3 replaces this with
// cgroups; until then a requested cgroup limit is refused rather than silently ignored.
#include "engine/resources.h"

namespace paddock::engine {
namespace {

class RlimitOnly final : public ResourceControl {
 public:
  explicit RlimitOnly(const Limits& l) : limits_(l) {}
  std::vector<int> attach_fds() const override { return {}; }
  std::vector<RlimitSpec> rlimits() const override {
    std::vector<RlimitSpec> out;
    if (!limits_.core_dumps) out.push_back({RLIMIT_CORE, {0, 0}});
    return out;
  }
  void started(pid_t) override {}
  bool kill_all() override { return false; }
  void finish(RunResult&) override {}

 private:
  Limits limits_;
};

}  // namespace

Result<std::unique_ptr<ResourceControl>> create_resource_control(const Limits& limits,
                                                                 const Features&) {
  if ((limits.memory_bytes || limits.pids || limits.cpu) && !limits.best_effort)
    return make_error("resource limits are not supported by this build yet", "limits");
  return std::unique_ptr<ResourceControl>(new RlimitOnly(limits));
}

}  // namespace paddock::engine
