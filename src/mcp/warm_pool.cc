#include "mcp/warm_pool.h"

#include <cstdio>
#include <vector>

namespace paddock::mcp {

WarmPool::WarmPool(std::map<std::string, unsigned> targets, Factory factory,
                   std::chrono::milliseconds backoff)
    : factory_(std::move(factory)), backoff_(backoff) {
  for (const auto& [name, n] : targets)
    if (n > 0) envs_[name].target = n;
}

WarmPool::~WarmPool() { stop(); }

void WarmPool::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || envs_.empty()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void WarmPool::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::vector<std::unique_ptr<WarmSlot>> doomed;
  {
    std::lock_guard lock(mu_);
    for (auto& [name, e] : envs_)
      for (auto& s : e.ready) doomed.push_back(std::move(s));
    for (auto& [name, e] : envs_) e.ready.clear();
  }
  doomed.clear();  // slot destructors kill their sandboxes, outside the lock
}

std::unique_ptr<WarmSlot> WarmPool::take(const std::string& env) {
  std::unique_ptr<WarmSlot> s;
  {
    std::lock_guard lock(mu_);
    auto it = envs_.find(env);
    if (it == envs_.end() || it->second.ready.empty()) return nullptr;
    s = std::move(it->second.ready.front());
    it->second.ready.pop_front();
    last_take_ = std::chrono::steady_clock::now();
  }
  cv_.notify_all();
  return s;
}

unsigned WarmPool::ready(const std::string& env) {
  std::lock_guard lock(mu_);
  auto it = envs_.find(env);
  return it == envs_.end() ? 0 : static_cast<unsigned>(it->second.ready.size());
}

std::string WarmPool::last_error(const std::string& env) {
  std::lock_guard lock(mu_);
  auto it = envs_.find(env);
  return it == envs_.end() ? std::string() : it->second.last_error;
}

void WarmPool::wait_full(std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, limit, [this] {
    for (auto& [name, e] : envs_)
      if (e.ready.size() < e.target && e.last_error.empty()) return false;
    return true;
  });
}

void WarmPool::loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    // The environment furthest below its target, not backing off.
    auto now = std::chrono::steady_clock::now();
    std::string pick;
    std::size_t best_gap = 0;
    auto next_retry = std::chrono::steady_clock::time_point::max();
    for (auto& [name, e] : envs_) {
      if (e.ready.size() >= e.target) continue;
      if (e.retry_after > now) {
        next_retry = std::min(next_retry, e.retry_after);
        continue;
      }
      std::size_t gap = e.target - e.ready.size();
      if (gap > best_gap) best_gap = gap, pick = name;
    }
    if (pick.empty()) {
      if (next_retry == std::chrono::steady_clock::time_point::max()) {
        cv_.wait(lock);
      } else {
        cv_.wait_until(lock, next_retry);
      }
      continue;
    }
    // Starting a sandbox competes for the CPU with the call that just took one: let that call
    // run first, unless the environment has nothing ready: then the next call starts a cold
    // sandbox in its own path anyway, and a client calling back to back would keep the refill
    // waiting for ever (issue 29).
    if (auto since = std::chrono::steady_clock::now() - last_take_;
        !envs_[pick].ready.empty() && since < refill_delay_) {
      cv_.wait_for(lock, refill_delay_ - since);
      continue;
    }
    lock.unlock();
    auto slot = factory_(pick);
    lock.lock();
    Env& e = envs_[pick];
    if (slot) {
      e.ready.push_back(std::move(*slot));
      e.last_error.clear();
    } else {
      if (e.last_error != slot.error().describe())
        std::fprintf(stderr, "paddock mcp: cannot pre-start a sandbox for %s: %s\n", pick.c_str(),
                     slot.error().describe().c_str());
      e.last_error = slot.error().describe();
      e.retry_after = std::chrono::steady_clock::now() + backoff_;
    }
    cv_.notify_all();
  }
}

}  // namespace paddock::mcp
