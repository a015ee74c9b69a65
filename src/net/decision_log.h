// The egress filter's decision log: every allowed and denied target, aggregated by host, port,
// protocol and verdict, for the footer, the run report and `--verbose`. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "net/domain_policy.h"
#include "net/egress.h"

namespace paddock::net {

class DecisionLog {
 public:
  // Set before any record(): called for each decision, under the log's lock (so serialised).
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
