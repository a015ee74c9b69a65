#include "mcp/readiness.h"

#include <fmt/format.h>

namespace paddock::mcp {

Readiness::Verdict Readiness::check(bool draining, const std::vector<PoolState>& pools,
                                    Clock::time_point now) {
  std::lock_guard lock(mu_);
  unsigned target = 0, ready = 0;
  for (const auto& p : pools) {
    target += p.target;
    ready += p.ready;
  }
  if (ready > 0) {
    warmed_ = true;
    empty_since_.reset();
  } else if (target > 0 && !empty_since_) {
    empty_since_ = now;
  }
  if (draining) return {false, "draining"};
  if (target == 0) return {true, "ready"};  // no warm pool: every call starts cold anyway
  if (!warmed_) return {false, "warming up"};
  if (ready == 0 && empty_limit_.count() > 0 && now - *empty_since_ > empty_limit_) {
    auto secs = std::chrono::duration_cast<std::chrono::seconds>(now - *empty_since_).count();
    return {false, fmt::format("warm pool empty for {} s", secs)};
  }
  return {true, "ready"};
}

}  // namespace paddock::mcp
