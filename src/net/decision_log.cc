#include "net/decision_log.h"

#include <algorithm>

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

void DecisionLog::record(const std::string& raw_host, std::uint16_t port, const std::string& protocol,
                         const Verdict& raw) {
  const std::string host = printable(raw_host);
  Verdict v = raw;
  // The reason may quote the name; the suggestion is built from valid names only, but costs
  // nothing to check.
  v.reason = printable(raw.reason, 1024);
  v.suggestion = printable(raw.suggestion, 1024);
  std::lock_guard lock(mu_);
  Key key{host, port, protocol, v.allowed};
  auto it = index_.find(key);
  DecisionRecord* r;
  if (it == index_.end()) {
    index_.emplace(key, records_.size());
    DecisionRecord nr;
    nr.host = host;
    nr.port = port;
    nr.protocol = protocol;
    nr.allowed = v.allowed;
    nr.reason = v.reason;
    nr.allow_with = v.suggestion;
    records_.push_back(std::move(nr));
    r = &records_.back();
  } else {
    r = &records_[it->second];
  }
  ++r->count;
  if (on_decision_) {
    DecisionRecord event = *r;
    event.reason = v.reason;
    event.count = 1;
    on_decision_(event);
  }
}

std::vector<DecisionRecord> DecisionLog::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

std::vector<std::string> DecisionLog::denied_targets() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& r : records_) {
    if (r.allowed) continue;
    std::string t = join_host_port(r.host, r.port);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace paddock::net
