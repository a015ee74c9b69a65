#include "mcp/sessions.h"

#include <gtest/gtest.h>

namespace paddock::mcp {
namespace {

using namespace std::chrono_literals;

TEST(Sessions, IdsAreRandomAndOwned) {
  SessionTable t({});
  std::string a = t.add("c1", "python", "h1");
  std::string b = t.add("c1", "python", "h2");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 34u);
  EXPECT_FALSE(t.acquire(a, "c2", "python").ok());
  auto h = t.acquire(a, "c1", "python");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, "h1");
  EXPECT_FALSE(t.acquire(a, "c1", "python").ok()) << "busy";
  t.release(a);
  EXPECT_TRUE(t.acquire(a, "c1", "python").ok());
  EXPECT_EQ(t.remove_owner("c1").size(), 2u);
  EXPECT_EQ(t.size(), 0u);
}

TEST(Sessions, IdleAndMaxAge) {
  auto now = std::chrono::steady_clock::time_point{};
  SessionTable t({10s, 100s, 4}, [&] { return now; });
  std::string a = t.add("c", "py", "ha");
  std::string b = t.add("c", "py", "hb");
  now += 5s;
  (void)t.acquire(b, "c", "py");
  t.release(b);
  now += 6s;  // a idle 11 s, b idle 6 s
  EXPECT_EQ(t.expire(), std::vector<std::string>{"ha"});
  for (int i = 0; i < 20; ++i) {
    now += 5s;
    (void)t.acquire(b, "c", "py");
    t.release(b);
  }
  EXPECT_EQ(t.expire(), std::vector<std::string>{"hb"}) << "max age reached though never idle";
}

TEST(Sessions, BusySessionsAreNotExpired) {
  auto now = std::chrono::steady_clock::time_point{};
  SessionTable t({1s, 2s, 4}, [&] { return now; });
  std::string a = t.add("c", "py", "ha");
  (void)t.acquire(a, "c", "py");
  now += 10s;
  EXPECT_TRUE(t.expire().empty());
  t.release(a);
  EXPECT_EQ(t.expire().size(), 1u);
}

TEST(Sessions, Full) {
  SessionTable t({10s, 10s, 1});
  EXPECT_FALSE(t.full());
  t.add("c", "py", "h");
  EXPECT_TRUE(t.full());
}

}  // namespace
}  // namespace paddock::mcp
