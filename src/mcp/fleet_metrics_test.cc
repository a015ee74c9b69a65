#include "mcp/fleet_metrics.h"

#include <gtest/gtest.h>

namespace paddock::mcp {
namespace {

bool has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(FleetMetrics, CallsByOutcomeLatencyStartsAndInFlight) {
  FleetMetrics m("1.2.3");
  ExecOutcome ok, timeout, failed, warm;
  timeout.timed_out = true;
  timeout.exit_code = 137;
  failed.status = ExecOutcome::Status::Failed;
  warm.warm = true;
  m.call_started("python");
  m.call_started("python");
  std::string mid = m.render();
  EXPECT_TRUE(has(mid, "paddock_mcp_calls_in_flight 2")) << mid;
  m.call_finished("python", &ok, false, std::chrono::milliseconds(30));
  m.call_finished("python", &timeout, false, std::chrono::seconds(3));
  m.call_started("shell");
  m.call_finished("shell", &failed, false, std::chrono::milliseconds(2));
  m.call_started("shell");
  m.call_finished("shell", nullptr, false, std::chrono::milliseconds(1));
  m.call_started("python");
  m.call_finished("python", &warm, false, std::chrono::milliseconds(8));
  m.call_started("python");
  m.call_finished("python", &ok, true, std::chrono::milliseconds(8));  // in a code session
  std::string t = m.render();
  EXPECT_TRUE(has(t, "paddock_mcp_calls_in_flight 0")) << t;
  EXPECT_TRUE(has(t, "paddock_mcp_calls_total{environment=\"python\",outcome=\"ok\"} 3"));
  EXPECT_TRUE(has(t, "paddock_mcp_calls_total{environment=\"python\",outcome=\"timeout\"} 1"));
  EXPECT_TRUE(has(t, "paddock_mcp_calls_total{environment=\"shell\",outcome=\"failed\"} 1"));
  EXPECT_TRUE(has(t, "paddock_mcp_calls_total{environment=\"shell\",outcome=\"error\"} 1"));
  EXPECT_TRUE(has(t, "paddock_mcp_sandbox_starts_total{environment=\"python\",pool=\"cold\"} 2"));
  EXPECT_TRUE(has(t, "paddock_mcp_sandbox_starts_total{environment=\"python\",pool=\"warm\"} 1"));
  EXPECT_TRUE(has(t, "paddock_mcp_call_duration_seconds_bucket{environment=\"python\",le=\"0.01\"} 2"));
  EXPECT_TRUE(has(t, "paddock_mcp_call_duration_seconds_bucket{environment=\"python\",le=\"0.05\"} 3"));
  EXPECT_TRUE(has(t, "paddock_mcp_call_duration_seconds_count{environment=\"python\"} 4"));
  EXPECT_TRUE(has(t, "paddock_mcp_build_info{version=\"1.2.3\"} 1"));
}

TEST(FleetMetrics, GaugesAreSampledFromTheSourcesAtEachScrape) {
  FleetMetrics m("t");
  unsigned ready = 2;
  m.set_sources({[] { return Server::Load{5, 2}; },
                 [&] { return std::vector<PoolState>{{"python", 2, ready, false}, {"node", 1, 0, true}}; },
                 [] { return std::size_t{7}; }, [] { return std::size_t{3}; },
                 [&] { return Readiness::Verdict{ready > 0, ready > 0 ? "ready" : "warming up"}; }});
  std::string t = m.render();
  EXPECT_TRUE(has(t, "paddock_mcp_calls_queued 5")) << t;
  EXPECT_TRUE(has(t, "paddock_mcp_warm_pool_ready{environment=\"python\"} 2"));
  EXPECT_TRUE(has(t, "paddock_mcp_warm_pool_target{environment=\"node\"} 1"));
  EXPECT_TRUE(has(t, "paddock_mcp_warm_pool_failing{environment=\"node\"} 1"));
  EXPECT_TRUE(has(t, "paddock_mcp_http_sessions 7"));
  EXPECT_TRUE(has(t, "paddock_mcp_code_sessions 3"));
  EXPECT_TRUE(has(t, "paddock_mcp_ready{reason=\"ready\"} 1"));
  ready = 0;
  t = m.render();
  EXPECT_TRUE(has(t, "paddock_mcp_warm_pool_ready{environment=\"python\"} 0"));
  EXPECT_TRUE(has(t, "paddock_mcp_ready{reason=\"warming up\"} 0"));
  EXPECT_EQ(t.find("reason=\"ready\"} 1"), std::string::npos) << "the old reason is gone";
}

TEST(FleetMetrics, RefusalsStartAtZeroForEveryReason) {
  FleetMetrics m("t");
  m.refused("rate", "alice");
  std::string t = m.render();
  for (const char* r : {"unauthorized", "scope", "concurrency", "rate", "draining", "connections"})
    EXPECT_NE(t.find(std::string("paddock_mcp_refusals_total{reason=\"") + r + "\",token=\"\"} 0"), std::string::npos) << r;
  EXPECT_TRUE(has(t, "paddock_mcp_refusals_total{reason=\"rate\",token=\"alice\"} 1"));
}

}  // namespace
}  // namespace paddock::mcp
