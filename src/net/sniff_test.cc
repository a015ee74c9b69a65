#include "net/sniff.h"

#include <gtest/gtest.h>

#include "net/dns_message.h"
#include "net/testing_tls.h"

namespace paddock::net {
namespace {

TEST(HttpHead, ParsesProxyRequest) {
  std::string req =
      "GET http://Allowed.test:8080/a/b?c=1 HTTP/1.1\r\nHost: allowed.test:8080\r\n"
      "Proxy-Connection: keep-alive\r\nUser-Agent: t\r\n\r\nBODY";
  HttpHead h;
  ASSERT_EQ(parse_http_head(req, &h), Parse::Ok);
  EXPECT_EQ(h.method, "GET");
  EXPECT_EQ(h.length, req.size() - 4);
  ASSERT_NE(h.header("host"), nullptr);
  EXPECT_EQ(*h.header("HOST"), "allowed.test:8080");
  auto uri = parse_absolute_uri(h.target);
  ASSERT_TRUE(uri);
  EXPECT_EQ(uri->host, "Allowed.test");
  EXPECT_EQ(uri->port, 8080);
  EXPECT_EQ(uri->path, "/a/b?c=1");
  EXPECT_EQ(rewrite_forward_head(h, *uri),
            "GET /a/b?c=1 HTTP/1.1\r\nHost: allowed.test:8080\r\nUser-Agent: t\r\n"
            "Connection: close\r\n\r\n");
}

TEST(HttpHead, IncompleteAndBad) {
  HttpHead h;
  EXPECT_EQ(parse_http_head("GET / HTTP/1.1\r\nHost: x\r\n", &h), Parse::Incomplete);
  EXPECT_EQ(parse_http_head("\x16\x03\x01 junk\r\n\r\n", &h), Parse::Bad);
  EXPECT_EQ(parse_http_head("GET /\r\n\r\n", &h), Parse::Bad);
  EXPECT_EQ(parse_http_head("GET / HTTP/1.1\r\n folded\r\n\r\n", &h), Parse::Bad);
  EXPECT_EQ(parse_http_head(std::string(kMaxHttpHead + 1, 'a'), &h), Parse::Bad);
}

TEST(AbsoluteUri, Forms) {
  EXPECT_FALSE(parse_absolute_uri("https://x/"));
  EXPECT_FALSE(parse_absolute_uri("/relative"));
  EXPECT_FALSE(parse_absolute_uri("http://user@x/"));
  EXPECT_FALSE(parse_absolute_uri("http://x:99999/"));
  auto v6 = parse_absolute_uri("http://[::1]:81");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 81);
  EXPECT_EQ(v6->path, "/");
  auto q = parse_absolute_uri("HTTP://x?y#frag");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->path, "/?y");
}

TEST(TlsSni, ReadsServerName) {
  auto hello = testing::client_hello("allowed.test");
  std::string sni;
  EXPECT_EQ(parse_tls_sni(hello.data(), hello.size(), &sni), Parse::Ok);
  EXPECT_EQ(sni, "allowed.test");
  EXPECT_EQ(parse_tls_sni(hello.data(), hello.size() - 1, &sni), Parse::Incomplete);
  EXPECT_EQ(parse_tls_sni(hello.data(), 3, &sni), Parse::Incomplete);
  auto none = testing::client_hello("");
  EXPECT_EQ(parse_tls_sni(none.data(), none.size(), &sni), Parse::Ok);
  EXPECT_EQ(sni, "");
  const std::uint8_t http[] = {'G', 'E', 'T', ' '};
  EXPECT_EQ(parse_tls_sni(http, sizeof(http), &sni), Parse::Bad);
}

TEST(TlsSni, SurvivesTruncatedLengths) {
  auto hello = testing::client_hello("allowed.test");
  // Corrupt every byte position in turn: never crash, never read past the buffer.
  for (std::size_t i = 5; i < hello.size(); ++i) {
    auto copy = hello;
    copy[i] = 0xff;
    std::string sni;
    (void)parse_tls_sni(copy.data(), copy.size(), &sni);
  }
}

TEST(Dns, QueryAndReply) {
  auto q = testing::dns_query(0x1234, "Allowed.TEST");
  auto parsed = parse_dns_query(q.data(), q.size());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->id, 0x1234);
  EXPECT_EQ(parsed->name, "allowed.test");
  EXPECT_EQ(parsed->qtype, kDnsTypeA);
  auto reply = build_dns_reply(q.data(), *parsed, DnsRcode::NoError, IpAddr::parse("127.77.0.1"), 60);
  ASSERT_EQ(reply.size(), q.size() + 16);
  EXPECT_EQ(reply[0], 0x12);
  EXPECT_EQ(reply[2] & 0x80, 0x80);  // QR
  EXPECT_EQ(reply[3] & 0x0f, 0);     // NOERROR
  EXPECT_EQ(reply[7], 1);            // one answer
  EXPECT_EQ(reply[reply.size() - 4], 127);
  EXPECT_EQ(reply[reply.size() - 3], 77);
  EXPECT_EQ(reply[reply.size() - 1], 1);

  auto nx = build_dns_reply(q.data(), *parsed, DnsRcode::NxDomain, std::nullopt, 0);
  EXPECT_EQ(nx.size(), q.size());
  EXPECT_EQ(nx[3] & 0x0f, 3);
  EXPECT_EQ(nx[7], 0);
}

TEST(Dns, RefusesOddMessages) {
  auto q = testing::dns_query(1, "x.test");
  EXPECT_FALSE(parse_dns_query(q.data(), 11));
  auto resp = q;
  resp[2] |= 0x80;
  EXPECT_FALSE(parse_dns_query(resp.data(), resp.size()));
  EXPECT_TRUE(build_dns_error(resp.data(), resp.size(), DnsRcode::FormErr).empty());
  auto ptr = q;
  ptr[12] = 0xc0;
  EXPECT_FALSE(parse_dns_query(ptr.data(), ptr.size()));
  auto err = build_dns_error(ptr.data(), ptr.size(), DnsRcode::FormErr);
  ASSERT_EQ(err.size(), 12u);
  EXPECT_EQ(err[3] & 0x0f, 1);
  for (std::size_t n = 0; n < q.size(); ++n) EXPECT_FALSE(parse_dns_query(q.data(), n)) << n;
}

}  // namespace
}  // namespace paddock::net
