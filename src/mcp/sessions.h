// Persistent sessions: the table that maps server-minted ids to the executor's long-lived
// sandboxes, with ownership (the connection that opened it), idle timeout and maximum lifetime.
// Pure bookkeeping, no I/O except reading random bytes for ids; the clock is injectable.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "paddock/result.h"

namespace paddock::mcp {

class SessionTable {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Limits {
    std::chrono::seconds idle{600};
    std::chrono::seconds max_age{3600};
    std::size_t max_sessions = 16;
  };
  explicit SessionTable(Limits limits, Clock clock = std::chrono::steady_clock::now);

  // Space for one more session? (Checked before the executor builds the sandbox.)
  bool full() const;
  // Registers an executor handle; returns the new public id ("s-" + 32 hex digits).
  std::string add(const std::string& owner, const std::string& env, const std::string& handle);
  // Takes a session for one call: it must exist, belong to `owner`, use `env`, and not be busy.
  Result<std::string> acquire(const std::string& id, const std::string& owner,
                              const std::string& env);
  void release(const std::string& id);
  // Removes a session the owner closes; returns its handle.
  Result<std::string> remove(const std::string& id, const std::string& owner);
  // Removes every session of an owner (disconnect); returns their handles.
  std::vector<std::string> remove_owner(const std::string& owner);
  // Removes every session (shutdown); returns their handles.
  std::vector<std::string> remove_all();
  // Removes idle-too-long and too-old sessions that are not busy; returns their handles.
  std::vector<std::string> expire();
  std::size_t size() const;

 private:
  struct Entry {
    std::string owner, env, handle;
    std::chrono::steady_clock::time_point created, last_used;
    bool busy = false;
  };
  Limits limits_;
  Clock clock_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// 128 random bits as hex, from getrandom(2).
std::string random_hex_id();

}  // namespace paddock::mcp
