// Synthetic addresses for names the sandbox's DNS answers: each allowed name gets its own
// loopback address in 127.77.0.0/16, so a transparent listener can tell from the address a
// client connected to which name it meant. Thread-safe.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "net/address.h"

namespace paddock::net {

class NameMap {
 public:
  // The address for `name` (canonical), assigned on first use. nullopt when the range is full.
  std::optional<IpAddr> assign(const std::string& name);
  // The name behind a synthetic address, if it is one we handed out.
  std::optional<std::string> lookup(const IpAddr& addr) const;
  static bool in_range(const IpAddr& addr);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::uint32_t> by_name_;
  std::vector<std::string> by_index_;  // index i -> 127.77.0.0 + i + 1
};

}  // namespace paddock::net
