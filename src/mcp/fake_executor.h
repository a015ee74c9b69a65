// A scripted Executor for unit tests: no sandboxes, just rules that turn code into outcomes.
//   "print:TEXT"   stdout TEXT
//   "exit:N"       exit code N
//   "sleep"        waits until cancelled or the timeout passes (then timed_out)
//   "flood:N"      N bytes of 'x' on stdout, truncated to the environment's max_output_bytes
//   "set:V" / "get"  remember V in the session / print it (sessions only)
//   "throw"        the executor throws (the server must survive)
//   "fail"         the sandbox cannot be built
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "mcp/executor.h"

namespace paddock::mcp {

class FakeExecutor : public Executor {
 public:
  Result<ExecOutcome> execute(const ExecRequest& req, CallControl& control) override {
    ++calls;
    ExecOutcome o;
    const std::string& code = req.code;
    if (code == "throw") throw std::runtime_error("fake executor exploded");
    if (code == "fail") {
      o.status = ExecOutcome::Status::Failed;
      o.error = "sandbox setup failed: mount proc: Operation not permitted";
      o.exit_code = 125;
      return o;
    }
    if (code.rfind("print:", 0) == 0) o.stdout_data = code.substr(6);
    if (code.rfind("exit:", 0) == 0) o.exit_code = std::stoi(code.substr(5));
    if (code.rfind("flood:", 0) == 0) {
      std::size_t n = std::stoul(code.substr(6));
      std::size_t cap = req.env->limits.max_output_bytes;
      o.stdout_bytes = n;
      o.stdout_data.assign(std::min(n, cap), 'x');
      o.stdout_truncated = n > cap;
    }
    if (code.rfind("set:", 0) == 0 || code == "get") {
      std::lock_guard lock(mu_);
      auto it = sessions_.find(req.session);
      if (it == sessions_.end()) {
        o.stderr_data = "no session";
        o.exit_code = 1;
      } else if (code == "get") {
        o.stdout_data = it->second;
      } else {
        it->second = code.substr(4);
      }
    }
    if (code == "sleep") {
      control.on_cancel([this] {
        std::lock_guard l(mu_);
        cv_.notify_all();
      });
      std::unique_lock lock(mu_);
      ++sleeping;
      sleeping_cv.notify_all();
      bool cancelled = !cv_.wait_for(lock, req.timeout, [&] { return control.cancelled(); });
      --sleeping;
      if (cancelled) {
        o.timed_out = true;
      } else {
        o.cancelled = true;
      }
      o.signal = 9;
      o.exit_code = 137;
    }
    if (o.stdout_bytes == 0) o.stdout_bytes = o.stdout_data.size();
    o.stderr_bytes = o.stderr_data.size();
    return o;
  }

  Result<std::string> open_session(const Environment& env) override {
    std::lock_guard lock(mu_);
    std::string h = "h" + std::to_string(++next_) + ":" + env.name;
    sessions_[h] = "";
    return h;
  }
  void close_session(const std::string& id) override {
    std::lock_guard lock(mu_);
    sessions_.erase(id);
    ++closed;
  }
  std::size_t open_sessions() {
    std::lock_guard lock(mu_);
    return sessions_.size();
  }
  // Blocks until `n` calls are inside "sleep".
  void wait_sleeping(int n) {
    std::unique_lock lock(mu_);
    sleeping_cv.wait(lock, [&] { return sleeping >= n; });
  }

  std::atomic<int> calls{0};
  std::atomic<int> closed{0};

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable sleeping_cv;
  int sleeping = 0;
  int next_ = 0;
  std::map<std::string, std::string> sessions_;
};

}  // namespace paddock::mcp
