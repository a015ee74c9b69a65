#include "mcp/readiness.h"

#include <gtest/gtest.h>

namespace paddock::mcp {
namespace {

using namespace std::chrono_literals;

std::vector<PoolState> pools(unsigned py_ready, unsigned sh_ready) {
  return {{"python", 2, py_ready, false}, {"shell", 2, sh_ready, false}};
}

TEST(Readiness, WarmingUpThenReady) {
  Readiness r(10s);
  auto t = Readiness::Clock::time_point{} + 1h;
  auto v = r.check(false, pools(0, 0), t);
  EXPECT_FALSE(v.ready);
  EXPECT_EQ(v.reason, "warming up");
  v = r.check(false, pools(1, 0), t + 1s);
  EXPECT_TRUE(v.ready);
  EXPECT_EQ(v.reason, "ready");
}

TEST(Readiness, EmptyPoolBeyondTheLimitIsNotReadyUntilItRefills) {
  Readiness r(10s);
  auto t = Readiness::Clock::time_point{} + 1h;
  EXPECT_TRUE(r.check(false, pools(2, 2), t).ready);
  EXPECT_TRUE(r.check(false, pools(0, 0), t + 1s).ready) << "empty for a moment is normal under load";
  EXPECT_TRUE(r.check(false, pools(0, 0), t + 11s).ready) << "exactly at the limit";
  auto v = r.check(false, pools(0, 0), t + 12s);
  EXPECT_FALSE(v.ready);
  EXPECT_EQ(v.reason, "warm pool empty for 11 s");
  EXPECT_TRUE(r.check(false, pools(0, 1), t + 13s).ready);
  EXPECT_TRUE(r.check(false, pools(0, 0), t + 14s).ready) << "the clock restarts after a refill";
}

TEST(Readiness, DrainingWins) {
  Readiness r(10s);
  auto t = Readiness::Clock::time_point{} + 1h;
  auto v = r.check(true, pools(2, 2), t);
  EXPECT_FALSE(v.ready);
  EXPECT_EQ(v.reason, "draining");
}

TEST(Readiness, NoPoolOrNoLimit) {
  auto t = Readiness::Clock::time_point{} + 1h;
  Readiness cold(10s);
  EXPECT_TRUE(cold.check(false, {}, t).ready) << "--no-warm: nothing to wait for";
  Readiness unlimited(0ms);
  EXPECT_TRUE(unlimited.check(false, pools(1, 0), t).ready);
  EXPECT_TRUE(unlimited.check(false, pools(0, 0), t + 1h).ready);
}

}  // namespace
}  // namespace paddock::mcp
