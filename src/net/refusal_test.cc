#include "net/refusal.h"

#include <gtest/gtest.h>

#include <vector>

namespace paddock::net {
namespace {

// An IPv4 TCP segment from 127.0.0.1:SPORT with FLAGS and SEQ (only the fields parse_refusal reads).
std::vector<std::uint8_t> v4(std::uint16_t sport, std::uint8_t flags, std::uint32_t seq, std::uint8_t proto = 6) {
  std::vector<std::uint8_t> p(40, 0);
  p[0] = 0x45;
  p[9] = proto;
  p[12] = 127, p[15] = 1;
  p[20] = static_cast<std::uint8_t>(sport >> 8), p[21] = static_cast<std::uint8_t>(sport);
  p[24] = static_cast<std::uint8_t>(seq >> 24), p[27] = static_cast<std::uint8_t>(seq);
  p[33] = flags;
  return p;
}

TEST(Refusal, ParsesTheResetThatAnswersASyn) {
  auto p = v4(8765, 0x14, 0);
  auto r = parse_refusal(p.data(), p.size());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->addr.to_string(), "127.0.0.1");
  EXPECT_EQ(r->port, 8765);
}

TEST(Refusal, IgnoresEverythingElse) {
  for (const auto& p : {v4(8765, 0x04, 0),        // RST without ACK: the end of a connection
                        v4(8765, 0x14, 12345),    // RST+ACK with a sequence: the same
                        v4(8765, 0x12, 0),        // SYN+ACK
                        v4(8765, 0x14, 0, 17),    // not TCP
                        v4(0, 0x14, 0)}) {         // port 0
    EXPECT_FALSE(parse_refusal(p.data(), p.size()));
  }
  auto shortp = v4(8765, 0x14, 0);
  EXPECT_FALSE(parse_refusal(shortp.data(), 30));
  EXPECT_FALSE(parse_refusal(shortp.data(), 0));
  shortp[0] = 0x4f;  // header length 60: past the packet
  EXPECT_FALSE(parse_refusal(shortp.data(), shortp.size()));
}

TEST(Refusal, ParsesIpv6) {
  std::vector<std::uint8_t> p(60, 0);
  p[0] = 0x60;
  p[6] = 6;
  p[23] = 1;  // source ::1
  p[40] = 0x22, p[41] = 0x3d;  // 8765
  p[53] = 0x14;
  auto r = parse_refusal(p.data(), p.size());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->addr.to_string(), "::1");
  EXPECT_EQ(r->port, 8765);
  p[6] = 0;  // an extension header first: not parsed
  EXPECT_FALSE(parse_refusal(p.data(), p.size()));
}

}  // namespace
}  // namespace paddock::net
