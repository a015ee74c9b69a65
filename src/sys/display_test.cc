#include "sys/display.h"

#include <gtest/gtest.h>

namespace paddock::sys {
namespace {

TEST(Display, PlainAndUtf8NamesPassUnchanged) {
  EXPECT_EQ(display("src/main.cc"), "src/main.cc");
  EXPECT_EQ(display("docs/r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac.txt"), "docs/r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac.txt");
  EXPECT_EQ(display("emoji \xf0\x9f\x99\x82"), "emoji \xf0\x9f\x99\x82");
}

TEST(Display, TerminalControlsAreEscaped) {
  // An erase-line sequence that would hide the entries before it in a confirmation.
  EXPECT_EQ(display("a\x1b[2K\rb"), "a\\x1b[2K\\x0db");
  EXPECT_EQ(display("new\nline\ttab\x7f"), "new\\x0aline\\x09tab\\x7f");
  // 8-bit CSI (U+009B) encoded in UTF-8, and the raw byte.
  EXPECT_EQ(display("x\xc2\x9b" "2Jy"), "x\\xc2\\x9b2Jy");
  EXPECT_EQ(display("x\x9b"), "x\\x9b");
}

TEST(Display, BidiOverridesAndIsolatesAreEscaped) {
  EXPECT_EQ(display("evil\xe2\x80\xaetxt.sh"), "evil\\xe2\\x80\\xaetxt.sh");   // U+202E
  EXPECT_EQ(display("a\xe2\x81\xa6" "b"), "a\\xe2\\x81\\xa6b");                 // U+2066
}

TEST(Display, InvalidUtf8IsEscapedBytewise) {
  EXPECT_EQ(display("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(display("\xc0\xaf"), "\\xc0\\xaf");              // overlong '/'
  EXPECT_EQ(display("\xed\xa0\x80"), "\\xed\\xa0\\x80");     // a surrogate
  EXPECT_EQ(display("\xe6\x97"), "\\xe6\\x97");              // cut short
}

TEST(Display, BackslashCannotForgeAnEscape) {
  EXPECT_EQ(display("a\\x1b"), "a\\\\x1b");
  EXPECT_NE(display("a\\x1b"), display("a\x1b"));
}

}  // namespace
}  // namespace paddock::sys
