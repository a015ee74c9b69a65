// The session's denials, aggregated: one line per (layer, what, operation) in first-met order,
// with a count, the first process and the first time. Thread-safe: the seccomp supervisor and the
// egress filter record from their own threads.
//
// Bounded: a program that meets ever new refusals (random paths, random hosts) must not grow
// paddock's memory, the report or the footer without end. Past `max_lines` distinct lines, new
// ones are counted in one line per layer, what = kOther.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "paddock/denial.h"

namespace paddock::supervisor {

class DenialLog {
 public:
  static constexpr std::size_t kMaxLines = 1024;
  static constexpr const char* kOther = "(other refusals)";
  explicit DenialLog(std::size_t max_lines = kMaxLines) : max_lines_(max_lines) {}

  // Set before any record(): called under the log's lock (so serialised) with the aggregated line
  // each time it is first met and each time its count reaches a power of two (2, 4, 8, ...):
  // `--denials FILE` is live without one write per call of a program that loops on a refusal.
  void set_listener(std::function<void(const Denial&)> fn) { on_line_ = std::move(fn); }

  // Counts `d` (d.count times, at least once). pid, comm and first_unix_ms are kept from the
  // first time the line is met (first_unix_ms: now, when d leaves it 0).
  void record(Denial d);

  std::vector<Denial> lines() const;

 private:
  using Key = std::tuple<Denial::Layer, std::string, std::string>;
  mutable std::mutex mu_;
  std::size_t max_lines_;
  std::map<Key, std::size_t> index_;
  std::vector<Denial> lines_;
  std::function<void(const Denial&)> on_line_;
};

}  // namespace paddock::supervisor
