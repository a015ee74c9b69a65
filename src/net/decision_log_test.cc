#include "net/decision_log.h"

#include <gtest/gtest.h>

namespace paddock::net {
namespace {

TEST(Printable, ValidNamesPassUnchanged) {
  EXPECT_EQ(printable("registry.npmjs.org"), "registry.npmjs.org");
  EXPECT_EQ(printable("[::1]:8080"), "[::1]:8080");
}

TEST(Printable, ControlBytesBackslashesAndNonAsciiAreEscaped) {
  EXPECT_EQ(printable("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
  EXPECT_EQ(printable(std::string("n\0ul", 4)), "n\\x00ul");
  EXPECT_EQ(printable("\x7f\xff\xc3\xa9"), "\\x7f\\xff\\xc3\\xa9");
  // A backslash is doubled, so an escaped byte and its spelling stay apart.
  EXPECT_EQ(printable("\\x1b"), "\\\\x1b");
  EXPECT_EQ(printable("tab\there\r\n"), "tab\\x09here\\x0d\\x0a");
}

TEST(Printable, FromPrintableGivesTheBytesBack) {
  for (std::string raw : {std::string("evil\x1b[31mRED\x07.test"), std::string("\\x1b"), std::string("a\\\\b"),
                          std::string("n\0ul\xff\xc2\x9b", 7), std::string("plain.example:443")})
    EXPECT_EQ(from_printable(printable(raw)), raw);
  EXPECT_EQ(from_printable("abc..."), "abc...");
}

TEST(Printable, LongInputIsCut) {
  EXPECT_EQ(printable(std::string(300, 'a')), std::string(255, 'a') + "...");
  EXPECT_EQ(printable("abcdef", 3), "abc...");
  EXPECT_EQ(printable("abc", 3), "abc");
}

TEST(DecisionLog, RecordsWhatTheSandboxSentEscaped) {
  DecisionLog log;
  std::vector<NetworkDecision> seen;
  log.set_listener([&](const NetworkDecision& d) { seen.push_back(d); });
  Verdict v;
  v.allowed = false;
  v.reason = "\"ev\x1bil\" is not a valid host name";
  log.record("ev\x1bil", 80, "http-transparent", v);
  log.record("ev\x1bil", 80, "http-transparent", v);
  auto r = log.records();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].host, "ev\\x1bil");
  EXPECT_EQ(r[0].reason, "\"ev\\x1bil\" is not a valid host name");
  EXPECT_EQ(r[0].count, 2u);
  EXPECT_EQ(log.denied_targets(), std::vector<std::string>{"ev\\x1bil:80"});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].host, "ev\\x1bil");
}

NetworkDecision denied(std::string host, std::uint64_t count = 1) {
  NetworkDecision d;
  d.host = std::move(host);
  d.port = 443;
  d.protocol = "connect";
  d.count = count;
  return d;
}

TEST(DecisionTally, AggregatesInFirstSeenOrder) {
  DecisionTally t;
  t.add(denied("b.example"));
  t.add(denied("a.example"));
  EXPECT_EQ(t.add(denied("b.example", 3)).count, 4u);
  auto allowed = denied("b.example");
  allowed.allowed = true;
  t.add(allowed);
  ASSERT_EQ(t.lines().size(), 3u);
  EXPECT_EQ(t.lines()[0].host, "b.example");
  EXPECT_EQ(t.lines()[1].host, "a.example");
  EXPECT_TRUE(t.lines()[2].allowed);
  EXPECT_EQ(t.take().size(), 3u);
  EXPECT_TRUE(t.lines().empty());
  EXPECT_EQ(t.add(denied("b.example")).count, 1u) << "take() starts the counts again";
}

TEST(DecisionTally, NewTargetsPastTheCapAreCountedAsOtherHosts) {
  DecisionTally t(3);
  for (int i = 0; i < 10; ++i) t.add(denied("n" + std::to_string(i) + ".example"));
  t.add(denied("n1.example"));  // a known target still counts on its own line
  auto allowed = denied("ok.example");
  allowed.allowed = true;
  t.add(allowed);
  ASSERT_EQ(t.lines().size(), 5u);
  EXPECT_EQ(t.lines()[1].count, 2u);
  EXPECT_EQ(t.lines()[3].host, DecisionTally::kOtherHosts);
  EXPECT_FALSE(t.lines()[3].allowed);
  EXPECT_EQ(t.lines()[3].count, 7u);
  EXPECT_EQ(t.lines()[3].port, 0);
  EXPECT_TRUE(t.lines()[3].allow_with.empty());
  EXPECT_EQ(t.lines()[4].host, DecisionTally::kOtherHosts);
  EXPECT_TRUE(t.lines()[4].allowed);
}

TEST(DecisionLog, StaysBoundedButTheListenerSeesEveryDecision) {
  DecisionLog log;
  std::size_t heard = 0;
  log.set_listener([&](const NetworkDecision&) { ++heard; });
  Verdict v;
  const std::size_t n = DecisionTally::kMaxLines + 500;
  for (std::size_t i = 0; i < n; ++i) log.record("h" + std::to_string(i) + ".example", 0, "dns", v);
  EXPECT_EQ(heard, n);
  auto r = log.records();
  ASSERT_EQ(r.size(), DecisionTally::kMaxLines + 1);
  EXPECT_EQ(r.back().count, 500u);
  EXPECT_EQ(log.denied_targets().size(), DecisionTally::kMaxLines + 1);
}

}  // namespace
}  // namespace paddock::net
