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
// printable()'s text back to the bytes it stood for (a cut stays "..."), for a printer that
// escapes by itself (sys::display: the footer), which would otherwise show each backslash twice.
std::string from_printable(std::string_view shown);

// Decisions aggregated by host, port, protocol and verdict, in first-seen order, in at most
// `max_lines` distinct lines: a program that tries ever new names (random DNS queries, say) must
// not grow paddock's memory, the report or the footer without bound. Past the cap, new targets
// are counted in one more line per verdict, host kOtherHosts. Not thread-safe.
class DecisionTally {
 public:
  static constexpr std::size_t kMaxLines = 1024;
  static constexpr const char* kOtherHosts = "(other hosts)";
  explicit DecisionTally(std::size_t max_lines = kMaxLines) : max_lines_(max_lines) {}
  // Counts `d` (d.count times, at least once); returns the line it was counted in.
  const NetworkDecision& add(const NetworkDecision& d);
  const std::vector<NetworkDecision>& lines() const { return lines_; }
  // The lines so far; the tally starts again empty.
  std::vector<NetworkDecision> take();

 private:
  using Key = std::tuple<std::string, std::uint16_t, std::string, bool>;
  std::size_t max_lines_;
  std::map<Key, std::size_t> index_;
  std::vector<NetworkDecision> lines_;
};

class DecisionLog {
 public:
  // Set before any record(): called for each decision, under the log's lock (so serialised).
  // Hosts and reasons are recorded through printable(): they may carry what a sandboxed program
  // sent, and they end up on the user's terminal (the footer), in logs and in MCP results.
  void set_listener(std::function<void(const DecisionRecord&)> fn) { on_decision_ = std::move(fn); }
  // Past DecisionTally::kMaxLines distinct targets, new ones are counted as "(other hosts)"; the
  // listener still sees each decision as it is.
  void record(const std::string& host, std::uint16_t port, const std::string& protocol,
              const Verdict& v);
  std::vector<DecisionRecord> records() const;
  std::vector<std::string> denied_targets() const;

 private:
  mutable std::mutex mu_;
  DecisionTally tally_;
  std::function<void(const DecisionRecord&)> on_decision_;
};

}  // namespace paddock::net
