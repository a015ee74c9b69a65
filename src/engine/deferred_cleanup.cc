#include "engine/deferred_cleanup.h"

#include <sys/wait.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace paddock::engine {
namespace {

class Cleaner {
 public:
  void add(pid_t init, std::unique_ptr<ResourceControl> resources) {
    std::lock_guard lock(mu_);
    queue_.push_back({init, std::move(resources)});
    ++pending_;
    if (!thread_started_) {
      // Detached: a process that exits with cleanups pending leaves its cgroups to the next
      // run's sweep of stale ones (sweep_stale_cgroups), as after a crash.
      std::thread([this] { loop(); }).detach();
      thread_started_ = true;
    }
    work_.notify_one();
  }

  void wait() {
    std::unique_lock lock(mu_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }

 private:
  struct Item {
    pid_t init;
    std::unique_ptr<ResourceControl> resources;
  };

  [[noreturn]] void loop() {
    for (;;) {
      Item item;
      {
        std::unique_lock lock(mu_);
        work_.wait(lock, [this] { return !queue_.empty(); });
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      pid_t r;
      do {
        r = ::waitpid(item.init, nullptr, __WALL);
      } while (r < 0 && errno == EINTR);
      for (const std::string& w : item.resources->remove_cgroups())
        std::fprintf(stderr, "paddock: %s\n", w.c_str());
      item.resources.reset();
      {
        std::lock_guard lock(mu_);
        --pending_;
      }
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<Item> queue_;
  std::size_t pending_ = 0;
  bool thread_started_ = false;
};

Cleaner& cleaner() {
  static Cleaner* c = new Cleaner();  // never destroyed: its thread may outlive static destructors
  return *c;
}

}  // namespace

void clean_up_in_background(pid_t init, std::unique_ptr<ResourceControl> resources) {
  cleaner().add(init, std::move(resources));
}

void wait_for_background_cleanup() { cleaner().wait(); }

}  // namespace paddock::engine
