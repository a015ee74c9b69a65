// The egress filter's decision log: every allowed and denied target, aggregated by host, port,
// protocol and verdict, for the footer, the run report and `--verbose`. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "net/domain_policy.h"
#include "net/egress.h"

namespace paddock::net {

// `untrusted` (a name a sandboxed program sent: Host header, SNI, CONNECT or SOCKS5 target) as
// text safe for a terminal, a log or a model: bytes outside printable ASCII become \xNN, a
// backslash becomes \\, and more than `max` bytes are cut with "...". Valid host names pass
// unchanged.
std::string printable(std::string_view untrusted, std::size_t max = 255);

class DecisionLog {
 public:
  // Set before any record(): called for each decision, under the log's lock (so serialised).
  // Hosts and reasons are recorded through printable(): they may carry what a sandboxed program
  // sent, and they end up on the user's terminal (the footer), in logs and in MCP results.
  void set_listener(std::function<void(const DecisionRecord&)> fn) { on_decision_ = std::move(fn); }
  void record(const std::string& host, std::uint16_t port, const std::string& protocol,
              const Verdict& v);
  std::vector<DecisionRecord> records() const;
  std::vector<std::string> denied_targets() const;

 private:
  using Key = std::tuple<std::string, std::uint16_t, std::string, bool>;
  mutable std::mutex mu_;
  std::map<Key, std::size_t> index_;
  std::vector<DecisionRecord> records_;
  std::function<void(const DecisionRecord&)> on_decision_;
};

}  // namespace paddock::net
