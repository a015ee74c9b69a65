// Moves bytes between pairs of connected sockets on one epoll thread, with splice(2) through a
// pipe per direction (no copies through user space). Half-closes are passed on; an error on
// either side closes the pair.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::net {

class Relay {
 public:
  // Called on the relay thread when a pair is finished: bytes a->b and b->a.
  using Done = std::function<void(std::uint64_t a_to_b, std::uint64_t b_to_a)>;

  Relay() = default;
  ~Relay() { stop(); }
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  Result<void> start();
  // Hands a pair over (thread-safe). Both sockets must be connected; they are made non-blocking.
  void add(sys::UniqueFd a, sys::UniqueFd b, Done done = {});
  // Closes every pair and joins the thread. Idempotent.
  void stop();
  std::size_t active() const { return active_.load(); }

 private:
  struct Direction {
    sys::UniqueFd pipe_r, pipe_w;
    std::size_t pending = 0;  // bytes in the pipe
    std::size_t cap = 0;      // the pipe's size
    bool grown = false;       // tried to enlarge the pipe (once, when it first filled up)
    bool src_eof = false;
    bool shut = false;        // dst write side shut down
    std::uint64_t bytes = 0;
  };
  struct Pair {
    std::uint64_t id = 0;
    sys::UniqueFd fd[2];
    Direction dir[2];  // dir[i]: fd[i] -> fd[1-i]
    std::uint32_t armed[2] = {0, 0};
    bool hup[2] = {false, false};  // removed from epoll: peer gone, nothing more to read
    Done done;
  };

  void loop();
  void take_new();
  // Moves what it can in direction d; false if the pair must close.
  bool pump(Pair& p, int d);
  void rearm(Pair& p);
  void close_pair(std::uint64_t id);

  sys::UniqueFd epoll_, wake_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> active_{0};
  std::mutex mu_;
  std::vector<std::unique_ptr<Pair>> incoming_;
  std::map<std::uint64_t, std::unique_ptr<Pair>> pairs_;  // relay thread only
  std::uint64_t next_id_ = 1;
};

}  // namespace paddock::net
