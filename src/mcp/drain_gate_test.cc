#include "mcp/drain_gate.h"

#include <gtest/gtest.h>

#include <thread>

namespace paddock::mcp {
namespace {

using namespace std::chrono_literals;

TEST(DrainGate, AdmitsUntilDrainingThenWaitsForWhatIsInFlight) {
  DrainGate g;
  ASSERT_TRUE(g.enter());
  ASSERT_TRUE(g.enter());
  EXPECT_TRUE(g.begin());
  EXPECT_FALSE(g.begin()) << "idempotent";
  EXPECT_TRUE(g.draining());
  EXPECT_FALSE(g.enter()) << "nothing new once draining";
  EXPECT_EQ(g.in_flight(), 2u);
  std::thread t([&] {
    std::this_thread::sleep_for(50ms);
    g.leave();
    std::this_thread::sleep_for(50ms);
    g.leave();
  });
  auto t0 = DrainGate::Clock::now();
  EXPECT_TRUE(g.wait_idle(t0 + 5s));
  EXPECT_GE(DrainGate::Clock::now() - t0, 90ms) << "waited for both";
  t.join();
}

TEST(DrainGate, DeadlinePassesWithCallsStillRunning) {
  DrainGate g;
  ASSERT_TRUE(g.enter());
  g.begin();
  auto t0 = DrainGate::Clock::now();
  EXPECT_FALSE(g.wait_idle(t0 + 100ms));
  EXPECT_GE(DrainGate::Clock::now() - t0, 100ms);
  g.leave();
  EXPECT_TRUE(g.wait_idle(DrainGate::Clock::now()));
}

}  // namespace
}  // namespace paddock::mcp
