#include "mcp/token_limits.h"

#include <gtest/gtest.h>

namespace paddock::mcp {
namespace {

using namespace std::chrono_literals;
using V = TokenLimiter::Verdict;

Token token(const std::string& name, unsigned conc, unsigned per_minute) {
  Token t;
  t.name = name;
  t.secret = name + "-secret-0123456789";
  t.limits = {conc, per_minute};
  return t;
}

TEST(TokenLimiter, ConcurrencyPerTokenLeavesOthersAlone) {
  TokenLimiter l;
  auto now = TokenLimiter::Clock::time_point{} + 1h;
  Token greedy = token("greedy", 2, 0), other = token("other", 2, 0);
  EXPECT_TRUE(l.admit(greedy, now).admitted());
  EXPECT_TRUE(l.admit(greedy, now).admitted());
  auto d = l.admit(greedy, now);
  EXPECT_EQ(d.verdict, V::TooManyInFlight);
  EXPECT_GE(d.retry_after, 1s);
  EXPECT_TRUE(l.admit(other, now).admitted()) << "another token is not starved";
  l.release(greedy);
  EXPECT_EQ(l.in_flight("greedy"), 1u);
  EXPECT_TRUE(l.admit(greedy, now).admitted());
}

TEST(TokenLimiter, CallsPerMinuteIsATokenBucket) {
  TokenLimiter l;
  auto now = TokenLimiter::Clock::time_point{} + 1h;
  Token t = token("t", 0, 60);  // one a second, bursts up to 60
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(l.admit(t, now).admitted()) << i;
    l.release(t);
  }
  auto d = l.admit(t, now);
  EXPECT_EQ(d.verdict, V::TooManyPerMinute);
  EXPECT_EQ(d.retry_after, 1s);
  now += 500ms;
  EXPECT_FALSE(l.admit(t, now).admitted()) << "half a call refilled";
  now += 600ms;
  EXPECT_TRUE(l.admit(t, now).admitted()) << "one call refilled after a second";
  l.release(t);
  now += 10min;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(l.admit(t, now).admitted()) << "refilled to the full minute, no more: " << i;
    l.release(t);
  }
  EXPECT_FALSE(l.admit(t, now).admitted());
}

TEST(TokenLimiter, NoLimitsAdmitsEverything) {
  TokenLimiter l;
  auto now = TokenLimiter::Clock::time_point{} + 1h;
  Token t = token("free", 0, 0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(l.admit(t, now).admitted());
  EXPECT_EQ(l.in_flight("free"), 1000u);
}

TEST(TokenLimiter, RetryAfterCoversTheWait) {
  TokenLimiter l;
  auto now = TokenLimiter::Clock::time_point{} + 1h;
  Token t = token("slow", 0, 2);  // one call per 30 s
  EXPECT_TRUE(l.admit(t, now).admitted());
  EXPECT_TRUE(l.admit(t, now).admitted());
  auto d = l.admit(t, now);
  EXPECT_EQ(d.verdict, V::TooManyPerMinute);
  EXPECT_EQ(d.retry_after, 30s);
  EXPECT_STREQ(verdict_name(d.verdict), "rate");
}

}  // namespace
}  // namespace paddock::mcp
