// A one-shot deadline: runs an action on its own thread if not stopped before `after` elapses.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace paddock::mcp {

class Deadline {
 public:
  Deadline(std::chrono::milliseconds after, std::function<void()> action)
      : thread_([this, after, action = std::move(action)] {
          std::unique_lock lock(mu_);
          if (!cv_.wait_for(lock, after, [this] { return stopped_; })) {
            fired_ = true;
            lock.unlock();
            action();
          }
        }) {}
  ~Deadline() { stop(); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  // Returns whether the action ran.
  bool stop() {
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return fired_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  bool fired_ = false;
  std::thread thread_;  // last: started after the members it uses
};

}  // namespace paddock::mcp
