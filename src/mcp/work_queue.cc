#include "mcp/work_queue.h"

#include <pthread.h>
#include <signal.h>

namespace paddock::mcp {

WorkQueue::WorkQueue(unsigned threads) {
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkQueue::post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

std::size_t WorkQueue::queued() const {
  std::lock_guard lock(mu_);
  return jobs_.size();
}

unsigned WorkQueue::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

void WorkQueue::wait_idle() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return jobs_.empty() && running_ == 0; });
}

void WorkQueue::loop() {
  // Jobs write to pipes whose readers may be gone (a killed sandbox): they get EPIPE, not a
  // process-killing SIGPIPE.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping and drained
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    ++running_;
    lock.unlock();
    job();
    lock.lock();
    --running_;
    if (jobs_.empty() && running_ == 0) idle_cv_.notify_all();
  }
}

}  // namespace paddock::mcp
