#include "mcp/sessions.h"

#include <sys/random.h>

#include <cstdint>
#include <cstdio>

namespace paddock::mcp {

std::string random_hex_id() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  char out[33];
  for (int i = 0; i < 16; ++i) std::snprintf(out + 2 * i, 3, "%02x", bytes[i]);
  return std::string(out, 32);
}

SessionTable::SessionTable(Limits limits, Clock clock)
    : limits_(limits), clock_(std::move(clock)) {}

bool SessionTable::full() const {
  std::lock_guard lock(mu_);
  return entries_.size() >= limits_.max_sessions;
}

std::size_t SessionTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

std::string SessionTable::add(const std::string& owner, const std::string& env,
                              const std::string& handle) {
  std::string id = "s-" + random_hex_id();
  auto now = clock_();
  std::lock_guard lock(mu_);
  entries_[id] = Entry{owner, env, handle, now, now, false};
  return id;
}

Result<std::string> SessionTable::acquire(const std::string& id, const std::string& owner,
                                          const std::string& env) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  // Another client's session is reported exactly like a missing one: ids are not oracles.
  if (it == entries_.end() || it->second.owner != owner)
    return make_error("no session \"" + id + "\" (it may have expired; start one with session=\"new\")");
  if (it->second.env != env)
    return make_error("session \"" + id + "\" runs environment \"" + it->second.env + "\", not \"" +
                      env + "\"");
  if (it->second.busy)
    return make_error("session \"" + id + "\" is busy with another call; wait for it to finish");
  it->second.busy = true;
  it->second.last_used = clock_();
  return it->second.handle;
}

void SessionTable::release(const std::string& id) {
  std::lock_guard lock(mu_);
  if (auto it = entries_.find(id); it != entries_.end()) {
    it->second.busy = false;
    it->second.last_used = clock_();
  }
}

Result<std::string> SessionTable::remove(const std::string& id, const std::string& owner) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.owner != owner)
    return make_error("no session \"" + id + "\"");
  std::string handle = it->second.handle;
  entries_.erase(it);
  return handle;
}

std::vector<std::string> SessionTable::remove_owner(const std::string& owner) {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.owner == owner) {
      out.push_back(it->second.handle);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::vector<std::string> SessionTable::remove_all() {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto& [id, e] : entries_) out.push_back(e.handle);
  entries_.clear();
  return out;
}

std::vector<std::string> SessionTable::expire() {
  auto now = clock_();
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& e = it->second;
    bool old = now - e.created >= limits_.max_age;
    bool idle = now - e.last_used >= limits_.idle;
    if (!e.busy && (old || idle)) {
      out.push_back(e.handle);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace paddock::mcp
