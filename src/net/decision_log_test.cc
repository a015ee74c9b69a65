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

}  // namespace
}  // namespace paddock::net
