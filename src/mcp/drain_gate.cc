#include "mcp/drain_gate.h"

namespace paddock::mcp {

bool DrainGate::enter() {
  std::lock_guard lock(mu_);
  if (draining_) return false;
  ++in_flight_;
  return true;
}

void DrainGate::leave() {
  std::lock_guard lock(mu_);
  if (in_flight_ > 0) --in_flight_;
  if (in_flight_ == 0) cv_.notify_all();
}

bool DrainGate::begin() {
  std::lock_guard lock(mu_);
  if (draining_) return false;
  draining_ = true;
  cv_.notify_all();
  return true;
}

bool DrainGate::draining() const {
  std::lock_guard lock(mu_);
  return draining_;
}

unsigned DrainGate::in_flight() const {
  std::lock_guard lock(mu_);
  return in_flight_;
}

bool DrainGate::wait_idle(Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, deadline, [this] { return in_flight_ == 0; });
}

}  // namespace paddock::mcp
