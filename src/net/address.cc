#include "net/address.h"

#include <ifaddrs.h>

#include <arpa/inet.h>

#include <cstring>
#include <vector>

namespace paddock::net {

std::optional<IpAddr> IpAddr::parse(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  if (text.empty() || text.size() > 45) return std::nullopt;
  std::string s(text);
  IpAddr a;
  if (s.find(':') == std::string::npos) {
    // inet_pton accepts only dotted quads with four parts, which is what we want.
    if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
    a.family = AF_INET;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
  a.family = AF_INET6;
  return a;
}

IpAddr IpAddr::from_sockaddr(const sockaddr* sa) {
  IpAddr a;
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    a.family = AF_INET;
    std::memcpy(a.bytes.data(), &in->sin_addr, 4);
  } else {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    a.family = AF_INET6;
    std::memcpy(a.bytes.data(), &in6->sin6_addr, 16);
  }
  return a;
}

IpAddr IpAddr::v4(std::uint32_t host_order) {
  IpAddr a;
  a.family = AF_INET;
  a.bytes[0] = static_cast<std::uint8_t>(host_order >> 24);
  a.bytes[1] = static_cast<std::uint8_t>(host_order >> 16);
  a.bytes[2] = static_cast<std::uint8_t>(host_order >> 8);
  a.bytes[3] = static_cast<std::uint8_t>(host_order);
  return a;
}

std::string IpAddr::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family, bytes.data(), buf, sizeof(buf));
  return buf;
}

std::optional<IpAddr> IpAddr::embedded_v4() const {
  if (family != AF_INET6) return std::nullopt;
  static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static constexpr std::uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(bytes.data(), kMapped, 12) != 0 && std::memcmp(bytes.data(), kNat64, 12) != 0) {
    return std::nullopt;
  }
  IpAddr v4;
  v4.family = AF_INET;
  std::memcpy(v4.bytes.data(), bytes.data() + 12, 4);
  return v4;
}

std::optional<Cidr> Cidr::parse(std::string_view text) {
  Cidr c;
  auto slash = text.find('/');
  auto addr = IpAddr::parse(text.substr(0, slash));
  if (!addr) return std::nullopt;
  c.base = *addr;
  int max = addr->family == AF_INET ? 32 : 128;
  c.prefix = max;
  if (slash != std::string_view::npos) {
    auto digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    int p = 0;
    for (char ch : digits) {
      if (ch < '0' || ch > '9') return std::nullopt;
      p = p * 10 + (ch - '0');
    }
    if (p > max) return std::nullopt;
    c.prefix = p;
  }
  return c;
}

bool Cidr::contains(const IpAddr& a) const {
  if (a.family != base.family) return false;
  int full = prefix / 8, rest = prefix % 8;
  if (std::memcmp(a.bytes.data(), base.bytes.data(), static_cast<std::size_t>(full)) != 0) return false;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a.bytes[full] & mask) == (base.bytes[full] & mask);
}

std::string Cidr::to_string() const {
  int max = base.family == AF_INET ? 32 : 128;
  if (prefix == max) return base.to_string();
  return base.to_string() + "/" + std::to_string(prefix);
}

namespace {

struct SpecialRange {
  const char* cidr;
  const char* why;
};

// Addresses an allowed *name* must not lead to unless a rule names the address itself.
constexpr SpecialRange kSpecial[] = {
    {"0.0.0.0/8", "\"this network\" (0.0.0.0/8)"},
    {"10.0.0.0/8", "private (10.0.0.0/8)"},
    {"100.64.0.0/10", "shared address space (100.64.0.0/10)"},
    {"127.0.0.0/8", "loopback (127.0.0.0/8)"},
    {"169.254.0.0/16", "link-local, including cloud metadata (169.254.0.0/16)"},
    {"172.16.0.0/12", "private (172.16.0.0/12)"},
    {"192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)"},
    {"192.168.0.0/16", "private (192.168.0.0/16)"},
    {"198.18.0.0/15", "benchmarking (198.18.0.0/15)"},
    {"224.0.0.0/4", "multicast (224.0.0.0/4)"},
    {"240.0.0.0/4", "reserved (240.0.0.0/4)"},
    {"::/128", "unspecified (::)"},
    {"::1/128", "loopback (::1)"},
    {"fc00::/7", "unique local (fc00::/7)"},
    {"fe80::/10", "link-local (fe80::/10)"},
    {"fec0::/10", "site-local (fec0::/10)"},
    {"ff00::/8", "multicast (ff00::/8)"},
};

const std::vector<Cidr>& special_cidrs() {
  static const std::vector<Cidr> cidrs = [] {
    std::vector<Cidr> out;
    for (const auto& r : kSpecial) out.push_back(*Cidr::parse(r.cidr));
    return out;
  }();
  return cidrs;
}

}  // namespace

std::optional<std::string> special_range(const IpAddr& a) {
  if (auto v4 = a.embedded_v4()) {
    if (auto why = special_range(*v4)) return *why + " inside an IPv6 address";
    return std::nullopt;
  }
  const auto& cidrs = special_cidrs();
  for (std::size_t i = 0; i < cidrs.size(); ++i) {
    if (cidrs[i].contains(a)) return std::string(kSpecial[i].why);
  }
  return std::nullopt;
}

socklen_t to_sockaddr(const IpAddr& a, std::uint16_t port, sockaddr_storage* out) {
  std::memset(out, 0, sizeof(*out));
  if (a.family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(out);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    std::memcpy(&in->sin_addr, a.bytes.data(), 4);
    return sizeof(sockaddr_in);
  }
  auto* in6 = reinterpret_cast<sockaddr_in6*>(out);
  in6->sin6_family = AF_INET6;
  in6->sin6_port = htons(port);
  std::memcpy(&in6->sin6_addr, a.bytes.data(), 16);
  return sizeof(sockaddr_in6);
}

std::vector<IpAddr> host_interface_addresses() {
  std::vector<IpAddr> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    if (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6) continue;
    out.push_back(IpAddr::from_sockaddr(i->ifa_addr));
  }
  ::freeifaddrs(list);
  return out;
}

}  // namespace paddock::net
