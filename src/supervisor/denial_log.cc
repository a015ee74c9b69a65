#include "supervisor/denial_log.h"

#include <bit>
#include <chrono>

namespace paddock::supervisor {
namespace {

std::int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

void DenialLog::record(Denial d) {
  const std::uint64_t n = d.count == 0 ? 1 : d.count;
  if (d.first_unix_ms == 0) d.first_unix_ms = now_unix_ms();
  std::lock_guard<std::mutex> lock(mu_);
  Key key{d.layer, d.what, d.op};
  auto it = index_.find(key);
  if (it == index_.end() && lines_.size() >= max_lines_) {
    // Past the cap: one line per layer holds every new refusal, with no details of any one.
    Denial other;
    other.layer = d.layer;
    other.what = kOther;
    other.op = "any";
    other.rule = "more distinct refusals than paddock keeps (" + std::to_string(max_lines_) + ")";
    other.first_unix_ms = d.first_unix_ms;
    key = Key{other.layer, other.what, other.op};
    it = index_.find(key);
    d = std::move(other);
  }
  if (it == index_.end()) {
    it = index_.emplace(key, lines_.size()).first;
    d.count = 0;
    lines_.push_back(std::move(d));
  }
  Denial& line = lines_[it->second];
  const std::uint64_t before = line.count;
  line.count += n;
  // A power of two in (before, count] exists exactly when the count gained a binary digit.
  const bool crossed = before == 0 || std::bit_width(before) != std::bit_width(line.count);
  if (crossed && on_line_) on_line_(line);
}

std::vector<Denial> DenialLog::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

}  // namespace paddock::supervisor
