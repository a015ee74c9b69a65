#include "policy/units.h"

#include <gtest/gtest.h>

namespace paddock {
namespace {

using std::chrono::milliseconds;

std::uint64_t size_ok(std::string_view s) {
  auto r = parse_size(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : 0;
}

std::string size_err(std::string_view s) {
  auto r = parse_size(s);
  EXPECT_FALSE(r.ok()) << s << " parsed as " << (r.ok() ? *r : 0);
  return r.ok() ? "" : r.error().message;
}

TEST(ParseSize, PlainAndBinaryUnits) {
  EXPECT_EQ(size_ok("1024"), 1024u);
  EXPECT_EQ(size_ok("0"), 0u);
  EXPECT_EQ(size_ok("64k"), 64u * 1024);
  EXPECT_EQ(size_ok("64K"), 64u * 1024);
  EXPECT_EQ(size_ok("512M"), 512ull << 20);
  EXPECT_EQ(size_ok("512MiB"), 512ull << 20);
  EXPECT_EQ(size_ok("512mb"), 512ull << 20);
  EXPECT_EQ(size_ok("2G"), 2ull << 30);
  EXPECT_EQ(size_ok("1.5G"), 3ull << 29);
  EXPECT_EQ(size_ok("0.5k"), 512u);
  EXPECT_EQ(size_ok("3T"), 3ull << 40);
  EXPECT_EQ(size_ok(" 2G "), 2ull << 30);
  EXPECT_EQ(size_ok("100b"), 100u);
  EXPECT_EQ(size_ok("15E"), 15ull << 60);
}

TEST(ParseSize, RejectsWithTheValueInTheMessage) {
  EXPECT_EQ(size_err("-1G"), "invalid size \"-1G\": a size cannot be negative");
  EXPECT_EQ(size_err("lots"), "invalid size \"lots\": not a number");
  EXPECT_EQ(size_err("2X"), "invalid size \"2X\": unknown unit \"X\" (use k, M, G, T)");
  EXPECT_EQ(size_err("1.5"), "invalid size \"1.5\": a fraction of a byte");
  EXPECT_EQ(size_err("16E"), "invalid size \"16E\": too large");
  EXPECT_EQ(size_err("99999999999999999999999"), "invalid size \"99999999999999999999999\": too large");
  EXPECT_EQ(size_err(""), "invalid size \"\": empty");
  size_err("1.G");
  size_err("G");
  size_err("1 G G");
  size_err("1e9");
  size_err("0x10");
  size_err("2G2");
}

TEST(ParseSize, ErrorHasAHint) {
  auto r = parse_size("big");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().hint.find("512M"), std::string::npos);
}

milliseconds dur_ok(std::string_view s) {
  auto r = parse_duration(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : milliseconds(-1);
}

std::string dur_err(std::string_view s) {
  auto r = parse_duration(s);
  EXPECT_FALSE(r.ok()) << s << " parsed as " << (r.ok() ? r->count() : 0) << "ms";
  return r.ok() ? "" : r.error().message;
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(dur_ok("30m"), milliseconds(30 * 60000));
  EXPECT_EQ(dur_ok("1h30m"), milliseconds(90 * 60000));
  EXPECT_EQ(dur_ok("90s"), milliseconds(90000));
  EXPECT_EQ(dur_ok("250ms"), milliseconds(250));
  EXPECT_EQ(dur_ok("2h"), milliseconds(2 * 3600000));
  EXPECT_EQ(dur_ok("1.5h"), milliseconds(90 * 60000));
  EXPECT_EQ(dur_ok("1d"), milliseconds(86400000));
  EXPECT_EQ(dur_ok("10"), milliseconds(10000));
  EXPECT_EQ(dur_ok("1m30s500ms"), milliseconds(90500));
  EXPECT_EQ(dur_ok("0s"), milliseconds(0));
  EXPECT_EQ(dur_ok("2H"), milliseconds(2 * 3600000));
}

TEST(ParseDuration, RejectsWithTheValueInTheMessage) {
  EXPECT_EQ(dur_err("-5s"), "invalid duration \"-5s\": a duration cannot be negative");
  EXPECT_EQ(dur_err("soon"), "invalid duration \"soon\": not a number");
  EXPECT_EQ(dur_err("5y"), "invalid duration \"5y\": unknown unit \"y\" (use ms, s, m, h, d)");
  EXPECT_EQ(dur_err("30s1m"),
            "invalid duration \"30s1m\": units must go from largest to smallest, each once");
  EXPECT_EQ(dur_err("1h30"), "invalid duration \"1h30\": missing unit (use ms, s, m, h, d)");
  EXPECT_EQ(dur_err("99999999999999999999d"), "invalid duration \"99999999999999999999d\": too large");
  dur_err("");
  dur_err("1h1h");
  dur_err("h");
  dur_err("1.h");
  dur_err("10 0s");
}

TEST(FormatSize, ExactAndApproximate) {
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(100), "100");
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(2ull << 30), "2G");
  EXPECT_EQ(format_size(512ull << 20), "512M");
  EXPECT_EQ(format_size(3ull << 29), "1536M");
  EXPECT_EQ(format_size(1400ull << 20), "1400M");
  EXPECT_EQ(format_size((1ull << 30) + 300 * 1024 * 1024 + 5), "1.2G");
  EXPECT_EQ(format_size(1500), "1.4K");
}

TEST(FormatSize, RoundTripsExactValues) {
  for (std::uint64_t v : {1ull, 1023ull, 4096ull, 3ull << 29, 7ull << 40, ~0ull >> 4 << 4}) {
    std::string s = format_size(v);
    if (s.find('.') != std::string::npos) continue;
    EXPECT_EQ(size_ok(s), v) << s;
  }
}

TEST(FormatDuration, Components) {
  EXPECT_EQ(format_duration(milliseconds(0)), "0s");
  EXPECT_EQ(format_duration(milliseconds(250)), "250ms");
  EXPECT_EQ(format_duration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(format_duration(milliseconds(30 * 60000)), "30m");
  EXPECT_EQ(format_duration(milliseconds(90 * 60000)), "1h30m");
  EXPECT_EQ(format_duration(milliseconds(49 * 3600000)), "49h");
  EXPECT_EQ(dur_ok(format_duration(milliseconds(3723004))), milliseconds(3723004));
}

}  // namespace
}  // namespace paddock
