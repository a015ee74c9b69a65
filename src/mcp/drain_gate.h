// Graceful drain: requests pass a gate while they are served; once draining begins the gate
// admits nothing new, and the worker waits for what is in flight up to a deadline. Knows nothing
// of HTTP or MCP (the transport decides what a refused request is answered).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace paddock::mcp {

class DrainGate {
 public:
  using Clock = std::chrono::steady_clock;
  // A request wants to be served: false once draining. Each true is followed by one leave().
  bool enter();
  void leave();
  // Stops admitting (idempotent); returns false when draining had already begun.
  bool begin();
  bool draining() const;
  unsigned in_flight() const;
  // Blocks until nothing is in flight or `deadline` passes; true when nothing is.
  bool wait_idle(Clock::time_point deadline);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool draining_ = false;
  unsigned in_flight_ = 0;
};

}  // namespace paddock::mcp
