#include "mcp/token_limits.h"

#include <algorithm>
#include <cmath>

namespace paddock::mcp {

TokenLimiter::Decision TokenLimiter::admit(const Token& token, Clock::time_point now) {
  std::lock_guard lock(mu_);
  State& s = states_[token.name];
  const TokenLimits& l = token.limits;
  if (l.max_concurrency > 0 && s.in_flight >= l.max_concurrency)
    return {Verdict::TooManyInFlight, std::chrono::seconds(1)};
  if (l.calls_per_minute > 0) {
    const double capacity = l.calls_per_minute;
    const double per_second = capacity / 60.0;
    if (s.bucket < 0) {
      s.bucket = capacity;
    } else {
      double elapsed = std::chrono::duration<double>(now - s.refilled).count();
      if (elapsed > 0) s.bucket = std::min(capacity, s.bucket + elapsed * per_second);
    }
    s.refilled = now;
    if (s.bucket < 1) {
      auto wait = static_cast<long long>(std::ceil((1 - s.bucket) / per_second));
      return {Verdict::TooManyPerMinute, std::chrono::seconds(std::max<long long>(1, wait))};
    }
    s.bucket -= 1;
  }
  ++s.in_flight;
  return {};
}

void TokenLimiter::release(const Token& token) {
  std::lock_guard lock(mu_);
  auto it = states_.find(token.name);
  if (it != states_.end() && it->second.in_flight > 0) --it->second.in_flight;
}

unsigned TokenLimiter::in_flight(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = states_.find(name);
  return it == states_.end() ? 0 : it->second.in_flight;
}

const char* verdict_name(TokenLimiter::Verdict v) {
  switch (v) {
    case TokenLimiter::Verdict::Admitted: return "admitted";
    case TokenLimiter::Verdict::TooManyInFlight: return "concurrency";
    case TokenLimiter::Verdict::TooManyPerMinute: return "rate";
  }
  return "?";
}

}  // namespace paddock::mcp
