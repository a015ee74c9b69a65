// Per-token limits on tool calls, so that one client cannot starve the others: at most
// `max_concurrency` calls of a token in flight, and at most `calls_per_minute` admitted per
// minute (a token bucket holding up to a minute's worth, refilled continuously). Pure
// bookkeeping with the time passed in; the HTTP transport asks before a tools/call is handed to
// the server and answers 429 with Retry-After when refused.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "mcp/tokens.h"

namespace paddock::mcp {

class TokenLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Verdict { Admitted, TooManyInFlight, TooManyPerMinute };
  struct Decision {
    Verdict verdict = Verdict::Admitted;
    std::chrono::seconds retry_after{0};  // refused: when trying again can succeed (at least 1 s)
    bool admitted() const { return verdict == Verdict::Admitted; }
  };

  // A call of `token` wants to start at `now`. Admitted calls must be released once.
  Decision admit(const Token& token, Clock::time_point now);
  void release(const Token& token);
  unsigned in_flight(const std::string& name) const;

 private:
  struct State {
    unsigned in_flight = 0;
    double bucket = -1;  // calls available now; -1 = not started (full)
    Clock::time_point refilled{};
  };
  mutable std::mutex mu_;
  std::map<std::string, State> states_;
};

// "concurrency" / "rate": the label a refusal has in metrics and in the error text.
const char* verdict_name(TokenLimiter::Verdict v);

}  // namespace paddock::mcp
