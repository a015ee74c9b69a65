#include "net/decision_log.h"

#include <algorithm>
#include <utility>

#include "net/host_rule.h"

namespace paddock::net {

std::string printable(std::string_view untrusted, std::size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < untrusted.size(); ++i) {
    if (i == max) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(untrusted[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string from_printable(std::string_view shown) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (shown[i] == '\\' && i + 1 < shown.size() && shown[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (shown[i] == '\\' && i + 3 < shown.size() && shown[i + 1] == 'x' && hex(shown[i + 2]) >= 0 &&
               hex(shown[i + 3]) >= 0) {
      out += static_cast<char>(hex(shown[i + 2]) * 16 + hex(shown[i + 3]));
      i += 3;
    } else {
      out += shown[i];
    }
  }
  return out;
}

const NetworkDecision& DecisionTally::add(const NetworkDecision& d) {
  std::uint64_t n = d.count == 0 ? 1 : d.count;
  auto it = index_.find(Key{d.host, d.port, d.protocol, d.allowed});
  if (it == index_.end()) {
    NetworkDecision line = d;
    // Two overflow lines at most (allowed, denied) beyond the cap.
    if (lines_.size() >= max_lines_) {
      line.host = kOtherHosts;
      line.port = 0;
      line.protocol = "*";
      line.reason = "more than " + std::to_string(max_lines_) +
                    " distinct targets: the rest are counted here, not listed";
      line.allow_with.clear();
      it = index_.find(Key{line.host, line.port, line.protocol, line.allowed});
    }
    if (it == index_.end()) {
      line.count = 0;
      it = index_.emplace(Key{line.host, line.port, line.protocol, line.allowed}, lines_.size()).first;
      lines_.push_back(std::move(line));
    }
  }
  NetworkDecision& line = lines_[it->second];
  line.count += n;
  return line;
}

std::vector<NetworkDecision> DecisionTally::take() {
  index_.clear();
  return std::exchange(lines_, {});
}

void DecisionLog::record(const std::string& host, std::uint16_t port, const std::string& protocol,
                         const Verdict& v) {
  NetworkDecision d;
  d.host = printable(host);
  d.port = port;
  d.protocol = protocol;
  d.allowed = v.allowed;
  // The reason may quote the name; the suggestion is built from valid names only, but costs
  // nothing to check.
  d.reason = printable(v.reason, 1024);
  d.allow_with = printable(v.suggestion, 1024);
  d.count = 1;
  std::lock_guard lock(mu_);
  tally_.add(d);
  if (on_decision_) on_decision_(d);
}

std::vector<DecisionRecord> DecisionLog::records() const {
  std::lock_guard lock(mu_);
  return tally_.lines();
}

std::vector<std::string> DecisionLog::denied_targets() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& r : tally_.lines()) {
    if (r.allowed) continue;
    std::string t = join_host_port(r.host, r.port);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace paddock::net
