#include "net/name_map.h"

namespace paddock::net {
namespace {
constexpr std::uint32_t kBase = (127u << 24) | (77u << 16);  // 127.77.0.0
constexpr std::uint32_t kCapacity = 65534;                   // .0.1 .. .255.254
}  // namespace

std::optional<IpAddr> NameMap::assign(const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = by_name_.find(name);
  std::uint32_t index;
  if (it != by_name_.end()) {
    index = it->second;
  } else {
    if (by_index_.size() >= kCapacity) return std::nullopt;
    index = static_cast<std::uint32_t>(by_index_.size());
    by_index_.push_back(name);
    by_name_.emplace(name, index);
  }
  return IpAddr::v4(kBase + index + 1);
}

bool NameMap::in_range(const IpAddr& a) {
  return a.family == AF_INET && a.bytes[0] == 127 && a.bytes[1] == 77;
}

std::optional<std::string> NameMap::lookup(const IpAddr& a) const {
  if (!in_range(a)) return std::nullopt;
  std::uint32_t v = static_cast<std::uint32_t>(a.bytes[2] << 8 | a.bytes[3]);
  if (v == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  if (v - 1 >= by_index_.size()) return std::nullopt;
  return by_index_[v - 1];
}

}  // namespace paddock::net
