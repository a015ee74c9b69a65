// The seam between the MCP server and whatever runs code: the server asks an Executor to run
// one piece of code in one environment and gets a typed outcome back. The real implementation
// (sandbox_executor.h) runs paddock sandboxes; tests use a fake.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mcp/config.h"
#include "paddock/network_decision.h"
#include "paddock/result.h"

namespace paddock::mcp {

// Cancellation of one call, from any thread. The executor registers what to do on cancel (kill
// the sandbox); a cancel that arrives first runs that action as soon as it is registered.
class CallControl {
 public:
  void cancel() {
    std::function<void()> action;
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      action = on_cancel_;
    }
    if (action) action();
  }
  bool cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }
  void on_cancel(std::function<void()> action) {
    bool now;
    {
      std::lock_guard lock(mu_);
      on_cancel_ = action;
      now = cancelled_;
    }
    if (now && action) action();
  }

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> on_cancel_;
};

struct ExecRequest {
  const Environment* env = nullptr;
  std::string code;
  std::chrono::milliseconds timeout{0};  // already capped by the environment
  std::string session;                   // empty: a fresh sandbox for this call only
};

// A limit that was asked for and how it went (mirrors paddock::LimitReport).
struct LimitNote {
  std::string name;
  std::string requested;
  std::string enforced_by;
  bool hit = false;
};

struct ExecOutcome {
  // Ran: the program started. Failed: the sandbox could not be built or the program could not be
  // started (`error` says why); nothing of the code ran.
  enum class Status { Ran, Failed };
  Status status = Status::Ran;
  std::string error;

  std::string stdout_data;
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::uint64_t stdout_bytes = 0;  // written by the program, shown or not
  std::uint64_t stderr_bytes = 0;
  int exit_code = 0;  // shell convention: 128+N for signal N
  int signal = 0;
  bool timed_out = false;
  bool oom = false;
  bool cancelled = false;
  bool pids_limit_hit = false;
  std::vector<LimitNote> limits;
  std::vector<std::string> warnings;
  // An environment with domain lists: what the code tried on the network during this call,
  // aggregated by host, port, protocol and verdict (docs/network.md).
  bool network_filtered = false;
  std::vector<NetworkDecision> network;
  std::chrono::milliseconds duration{0};
  bool warm = false;  // served from a pre-started sandbox
};

// One environment's warm pool, for /readyz and /metrics.
struct PoolState {
  std::string environment;
  unsigned target = 0;  // sandboxes kept ready
  unsigned ready = 0;   // ready now
  bool failing = false; // the last refill failed (the pool backs off)
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs the code; blocks until it is done, timed out or cancelled. An Error means the executor
  // itself failed (not the code); the server reports it as a tool error.
  virtual Result<ExecOutcome> execute(const ExecRequest& request, CallControl& control) = 0;

  // Sessions: a long-lived sandbox whose state (files, variables) persists across calls.
  virtual Result<std::string> open_session(const Environment& env) {
    (void)env;
    return make_error("sessions are not supported by this executor");
  }
  virtual void close_session(const std::string& id) { (void)id; }

  // Called once when the server is ready to serve (e.g. to fill warm pools), and on shutdown.
  virtual void start_background() {}
  virtual void shutdown() {}
  // The warm pools, one per warmable environment (none without a pool).
  virtual std::vector<PoolState> pool_states() { return {}; }
  // Short facts for list_environments (interpreter version, warm sandboxes ready, ...).
  virtual std::string describe(const Environment& env) {
    (void)env;
    return {};
  }
};

}  // namespace paddock::mcp
