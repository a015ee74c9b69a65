#include "mcp/warm_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

namespace paddock::mcp {
namespace {

struct Slot : WarmSlot {};

// A client calling back to back keeps taking; once an environment has nothing ready, the refill
// must not wait for a pause that never comes (the next call would start a cold sandbox).
TEST(WarmPool, RefillsAnEmptyEnvironmentWithoutWaitingForAPause) {
  ::setenv("PADDOCK_MCP_REFILL_DELAY_MS", "60000", 1);
  std::atomic<int> made{0};
  WarmPool pool({{"py", 1}}, [&](const std::string&) -> Result<std::unique_ptr<WarmSlot>> {
    ++made;
    return std::unique_ptr<WarmSlot>(std::make_unique<Slot>());
  });
  ::unsetenv("PADDOCK_MCP_REFILL_DELAY_MS");
  pool.start();
  pool.wait_full(std::chrono::seconds(10));
  ASSERT_EQ(pool.ready("py"), 1u);
  ASSERT_NE(pool.take("py"), nullptr);
  pool.wait_full(std::chrono::seconds(10));  // far below the 60 s delay
  EXPECT_EQ(pool.ready("py"), 1u);
  EXPECT_EQ(made.load(), 2);
}

// While an environment still has a ready slot, a refill waits for the delay after a take.
TEST(WarmPool, RefillBelowTargetWaitsForTheDelayWhileSlotsRemain) {
  ::setenv("PADDOCK_MCP_REFILL_DELAY_MS", "60000", 1);
  WarmPool pool({{"py", 2}}, [&](const std::string&) -> Result<std::unique_ptr<WarmSlot>> {
    return std::unique_ptr<WarmSlot>(std::make_unique<Slot>());
  });
  ::unsetenv("PADDOCK_MCP_REFILL_DELAY_MS");
  pool.start();
  pool.wait_full(std::chrono::seconds(10));
  ASSERT_EQ(pool.ready("py"), 2u);
  ASSERT_NE(pool.take("py"), nullptr);
  pool.wait_full(std::chrono::milliseconds(300));
  EXPECT_EQ(pool.ready("py"), 1u);
  EXPECT_EQ(pool.take("nope"), nullptr);
}

}  // namespace
}  // namespace paddock::mcp
