// Sandboxes started ahead of time, per environment, refilled in the background. A slot is taken
// by exactly one call and never returned: the pool only ever hands out fresh sandboxes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "paddock/result.h"

namespace paddock::mcp {

class WarmSlot {
 public:
  virtual ~WarmSlot() = default;
};

class WarmPool {
 public:
  using Factory = std::function<Result<std::unique_ptr<WarmSlot>>(const std::string& env)>;
  // targets: how many ready slots to keep per environment name.
  WarmPool(std::map<std::string, unsigned> targets, Factory factory,
           std::chrono::milliseconds backoff = std::chrono::seconds(5));
  ~WarmPool();  // stop()
  WarmPool(const WarmPool&) = delete;
  WarmPool& operator=(const WarmPool&) = delete;

  void start();
  // Stops refilling and destroys the ready slots.
  void stop();
  // A ready slot, or nullptr (the caller starts one itself).
  std::unique_ptr<WarmSlot> take(const std::string& env);
  unsigned ready(const std::string& env);
  // Blocks until every environment is at its target (or failing); for tests and benchmarks.
  void wait_full(std::chrono::milliseconds limit);
  // The last error that made an environment's refill back off, if any.
  std::string last_error(const std::string& env);

 private:
  void loop();
  struct Env {
    unsigned target = 0;
    std::deque<std::unique_ptr<WarmSlot>> ready;
    std::chrono::steady_clock::time_point retry_after{};
    std::string last_error;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Env> envs_;
  Factory factory_;
  std::chrono::milliseconds backoff_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point last_take_{};
  // A refill waits this long after the last take (PADDOCK_MCP_REFILL_DELAY_MS overrides).
  std::chrono::milliseconds refill_delay_{std::getenv("PADDOCK_MCP_REFILL_DELAY_MS")
                                              ? std::atoi(std::getenv("PADDOCK_MCP_REFILL_DELAY_MS"))
                                              : 30};
  std::thread thread_;
};

}  // namespace paddock::mcp
