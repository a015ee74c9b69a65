// A fixed set of worker threads running jobs in arrival order: tool calls execute here so the
// transport keeps reading (cancellations, pings) while code runs.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace paddock::mcp {

class WorkQueue {
 public:
  explicit WorkQueue(unsigned threads);
  ~WorkQueue();  // finishes queued jobs, then joins
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void post(std::function<void()> job);
  // Jobs waiting for a thread, and jobs running now.
  std::size_t queued() const;
  unsigned running() const;
  // Blocks until no job is queued or running.
  void wait_idle();

 private:
  void loop();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> jobs_;
  unsigned running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace paddock::mcp
