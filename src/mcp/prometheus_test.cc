#include "mcp/prometheus.h"

#include <gtest/gtest.h>

#include <cmath>

namespace paddock::mcp::prometheus {
namespace {

TEST(Prometheus, CounterAndGaugeExposition) {
  Registry r;
  auto& calls = r.counter("x_calls_total", "Calls.", {"environment", "outcome"});
  auto& inflight = r.gauge("x_in_flight", "Calls running now.");
  calls.add({"python", "ok"});
  calls.add({"python", "ok"}, 2);
  calls.add({"shell", "timeout"});
  calls.add({"shell", "timeout"}, -5);  // ignored: counters only go up
  inflight.set({}, 3);
  inflight.add({}, -1);
  EXPECT_EQ(r.render(),
            "# HELP x_calls_total Calls.\n"
            "# TYPE x_calls_total counter\n"
            "x_calls_total{environment=\"python\",outcome=\"ok\"} 3\n"
            "x_calls_total{environment=\"shell\",outcome=\"timeout\"} 1\n"
            "# HELP x_in_flight Calls running now.\n"
            "# TYPE x_in_flight gauge\n"
            "x_in_flight 2\n");
  EXPECT_EQ(calls.value({"python", "ok"}), 3);
  EXPECT_EQ(calls.value({"node", "ok"}), 0);
}

TEST(Prometheus, HistogramBucketsAreCumulativeWithSumAndCount) {
  Registry r;
  auto& h = r.histogram("x_seconds", "Latency.", {"env"}, {0.1, 0.01, 1});  // sorted on use
  h.observe({"py"}, 0.005);
  h.observe({"py"}, 0.01);  // on a bound: counted in that bucket (le = less or equal)
  h.observe({"py"}, 0.5);
  h.observe({"py"}, 7);
  EXPECT_EQ(r.render(),
            "# HELP x_seconds Latency.\n"
            "# TYPE x_seconds histogram\n"
            "x_seconds_bucket{env=\"py\",le=\"0.01\"} 2\n"
            "x_seconds_bucket{env=\"py\",le=\"0.1\"} 2\n"
            "x_seconds_bucket{env=\"py\",le=\"1\"} 3\n"
            "x_seconds_bucket{env=\"py\",le=\"+Inf\"} 4\n"
            "x_seconds_sum{env=\"py\"} 7.515\n"
            "x_seconds_count{env=\"py\"} 4\n");
  EXPECT_EQ(h.value({"py"}), 4);
}

TEST(Prometheus, LabelValuesAndHelpAreEscaped) {
  Registry r;
  auto& c = r.counter("x_total", "Line one\nback\\slash", {"name"});
  c.add({"a\"b\\c\nd"});
  EXPECT_EQ(r.render(),
            "# HELP x_total Line one\\nback\\\\slash\n"
            "# TYPE x_total counter\n"
            "x_total{name=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(Prometheus, SamplersRunAtEachScrapeAndTouchShowsZeroes) {
  Registry r;
  auto& g = r.gauge("x_ready", "Ready slots.", {"env"});
  auto& c = r.counter("x_refusals_total", "Refusals.", {"reason"});
  c.touch({"rate"});
  int n = 0;
  r.on_scrape([&] {
    g.clear();
    g.set({"py"}, ++n);
  });
  EXPECT_NE(r.render().find("x_ready{env=\"py\"} 1\n"), std::string::npos);
  std::string second = r.render();
  EXPECT_NE(second.find("x_ready{env=\"py\"} 2\n"), std::string::npos);
  EXPECT_NE(second.find("x_refusals_total{reason=\"rate\"} 0\n"), std::string::npos);
}

TEST(Prometheus, Numbers) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(-3), "-3");
  EXPECT_EQ(format_value(0.25), "0.25");
  EXPECT_EQ(format_value(INFINITY), "+Inf");
  EXPECT_EQ(format_value(-INFINITY), "-Inf");
  EXPECT_EQ(format_value(NAN), "NaN");
}

}  // namespace
}  // namespace paddock::mcp::prometheus
