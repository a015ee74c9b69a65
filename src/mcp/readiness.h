// /readyz for a fleet: whether this worker should be given new sessions. Not ready while
// draining, while warming up (no warm sandbox has been ready yet), and while the warm pools have
// stayed empty longer than a threshold (the worker cannot keep up, or its refills fail): a load
// balancer then sends new sessions elsewhere. /healthz (alive) needs none of this. Pure: the
// pool state and the time are passed in.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mcp/executor.h"

namespace paddock::mcp {

class Readiness {
 public:
  using Clock = std::chrono::steady_clock;
  // empty_limit: how long the warm pools may stay empty (summed over environments) before the
  // worker says it is not ready; zero: never for that reason.
  explicit Readiness(std::chrono::milliseconds empty_limit) : empty_limit_(empty_limit) {}

  struct Verdict {
    bool ready = true;
    std::string reason;  // "ready", "draining", "warming up", "warm pool empty for 12 s"
  };
  Verdict check(bool draining, const std::vector<PoolState>& pools, Clock::time_point now);

 private:
  std::chrono::milliseconds empty_limit_;
  std::mutex mu_;
  bool warmed_ = false;                       // a warm sandbox has been ready at least once
  std::optional<Clock::time_point> empty_since_;
};

}  // namespace paddock::mcp
