// The egress filter in-process, in this process's network namespace: only the proxy listener is
// created (on 127.0.0.1, an ephemeral port); upstream servers are loopback test servers that the
// test-only resolve map names. The transparent listeners and DNS are in egress_netns_test.cc.
#include "net/egress.h"

#include <gtest/gtest.h>

#include <chrono>

#include "net/testing_servers.h"

namespace paddock::net {
namespace {

using testing::Server;

struct Fixture {
  std::unique_ptr<EgressFilter> filter;
  std::uint16_t proxy_port = 0;

  sys::UniqueFd connect() const { return testing::connect_to(INADDR_LOOPBACK, proxy_port); }
};

Fixture start(std::vector<std::string> allow, std::vector<std::string> deny,
              std::vector<std::pair<std::string, std::string>> resolve,
              EgressOptions opts = {}) {
  NetworkPolicy p;
  p.mode = NetMode::Filtered;
  p.allow_domains = std::move(allow);
  p.deny_domains = std::move(deny);
  opts.resolve = std::move(resolve);
  opts.connect_timeout = std::chrono::milliseconds(3000);
  auto f = create_egress_filter(p, opts);
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().describe());
  Fixture fx;
  fx.filter = std::move(*f);
  std::vector<sys::UniqueFd> fds;
  for (const auto& spec : fx.filter->listeners()) {
    if (spec.kind == ListenSpec::Role::Proxy) {
      fds.push_back(testing::listen_loopback(&fx.proxy_port));
    } else {
      fds.emplace_back();
    }
  }
  auto r = fx.filter->serve(std::move(fds));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  return fx;
}

std::string http_get_via_proxy(const Fixture& fx, const std::string& host, std::uint16_t port,
                               const std::string& path = "/x") {
  auto c = fx.connect();
  std::string hp = host + ":" + std::to_string(port);
  testing::send_all(c.get(), "GET http://" + hp + path + " HTTP/1.1\r\nHost: " + hp +
                                 "\r\nProxy-Connection: keep-alive\r\n\r\n");
  return testing::read_all(c.get());
}

std::string connect_via_proxy(const Fixture& fx, const std::string& target, sys::UniqueFd* out) {
  auto c = fx.connect();
  testing::send_all(c.get(), "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
  std::string head;
  char ch;
  while (head.find("\r\n\r\n") == std::string::npos && ::recv(c.get(), &ch, 1, 0) == 1) head += ch;
  *out = std::move(c);
  return head;
}

// SOCKS5 CONNECT to a domain; returns the reply code (or -1).
int socks5_connect(int fd, const std::string& host, std::uint16_t port) {
  testing::send_all(fd, std::string("\x05\x01\x00", 3));
  if (testing::read_n(fd, 2) != std::string("\x05\x00", 2)) return -1;
  std::string req("\x05\x01\x00\x03", 4);
  req += static_cast<char>(host.size());
  req += host;
  req += static_cast<char>(port >> 8);
  req += static_cast<char>(port & 0xff);
  testing::send_all(fd, req);
  std::string rep = testing::read_n(fd, 10);
  return rep.size() == 10 ? static_cast<unsigned char>(rep[1]) : -1;
}

bool has_decision(const EgressFilter& f, const std::string& host, std::uint16_t port,
                  const std::string& proto, bool allowed) {
  for (const auto& d : f.decisions()) {
    if (d.host == host && d.port == port && d.protocol == proto && d.allowed == allowed) return true;
  }
  return false;
}

TEST(Egress, RefusesNonFilteredModesAndBadRules) {
  NetworkPolicy off;
  EXPECT_FALSE(create_egress_filter(off, {}).ok());
  NetworkPolicy bad;
  bad.mode = NetMode::Filtered;
  bad.allow_domains = {"a..b"};
  EXPECT_FALSE(create_egress_filter(bad, {}).ok());
  NetworkPolicy ok;
  ok.mode = NetMode::Filtered;
  EgressOptions o;
  o.resolve = {{"x.test", "not-an-address"}};
  auto r = create_egress_filter(ok, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().where.find("--resolve"), std::string::npos);
}

TEST(Egress, ListenersEnvironmentResolvConf) {
  NetworkPolicy p;
  p.mode = NetMode::Filtered;
  p.allow_domains = {"github.com:22", "x.test:443", "y.test:3128", "z.test:53"};
  auto f = create_egress_filter(p, {});
  ASSERT_TRUE(f.ok());
  auto ls = (*f)->listeners();
  std::vector<std::string> roles;
  for (const auto& l : ls) roles.push_back(l.role + "@" + std::to_string(l.port));
  EXPECT_EQ(roles, (std::vector<std::string>{"proxy@3128", "dns@53", "dns-tcp@53", "transparent:80@80",
                                             "transparent:443@443", "transparent:22@22",
                                             "refusals@0"}));
  EXPECT_EQ(ls[0].addr_be, htonl(INADDR_LOOPBACK));
  EXPECT_EQ(ls[3].addr_be, htonl(INADDR_ANY));
  auto env = (*f)->environment();
  bool https = false, all = false;
  for (const auto& [k, v] : env) {
    https = https || (k == "https_proxy" && v == "http://127.0.0.1:3128");
    all = all || (k == "ALL_PROXY" && v == "socks5h://127.0.0.1:3128");
  }
  EXPECT_TRUE(https);
  EXPECT_TRUE(all);
  EXPECT_EQ((*f)->resolv_conf().rfind("nameserver 127.0.0.1\n", 0), 0u);
}

TEST(Egress, HttpForwardAllowed) {
  Server web(Server::http());
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}});
  std::string resp = http_get_via_proxy(fx, "allowed.test", web.port());
  EXPECT_NE(resp.find("200 OK"), std::string::npos) << resp;
  // The upstream saw an origin-form request, with the Host header intact.
  EXPECT_NE(resp.find("GET /x host=allowed.test:" + std::to_string(web.port())), std::string::npos) << resp;
  EXPECT_TRUE(has_decision(*fx.filter, "allowed.test", web.port(), "http", true));
  EXPECT_TRUE(fx.filter->denied_hosts().empty());
}

TEST(Egress, HttpForwardDeniedNeverReachesTheServer) {
  Server web(Server::http());
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}, {"denied.test", "127.0.0.1"}});
  std::string resp = http_get_via_proxy(fx, "denied.test", web.port());
  EXPECT_NE(resp.find("403 Forbidden"), std::string::npos) << resp;
  EXPECT_NE(resp.find("[paddock] blocked by network policy: host denied.test"), std::string::npos) << resp;
  EXPECT_NE(resp.find("allow with --allow-domain denied.test:" + std::to_string(web.port())), std::string::npos) << resp;
  EXPECT_EQ(web.accepted(), 0);
  EXPECT_EQ(fx.filter->denied_hosts(), std::vector<std::string>{"denied.test:" + std::to_string(web.port())});
  EXPECT_TRUE(has_decision(*fx.filter, "denied.test", web.port(), "http", false));
  EXPECT_EQ(fx.filter->stats().denied, 1u);
}

TEST(Egress, HttpForwardHostHeaderMustMatch) {
  Server web(Server::http());
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}});
  auto c = fx.connect();
  std::string hp = "allowed.test:" + std::to_string(web.port());
  testing::send_all(c.get(), "GET http://" + hp + "/ HTTP/1.1\r\nHost: evil.test\r\n\r\n");
  std::string resp = testing::read_all(c.get());
  EXPECT_NE(resp.find("400"), std::string::npos) << resp;
  EXPECT_EQ(web.accepted(), 0);
}

TEST(Egress, ConnectAllowedRelaysBothWays) {
  Server echo(Server::echo());
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}});
  sys::UniqueFd c;
  std::string head = connect_via_proxy(fx, "allowed.test:" + std::to_string(echo.port()), &c);
  ASSERT_NE(head.find("200"), std::string::npos) << head;
  testing::send_all(c.get(), "ping");
  EXPECT_EQ(testing::read_n(c.get(), 4), "ping");
  ::shutdown(c.get(), SHUT_WR);
  EXPECT_EQ(testing::read_all(c.get()), "");  // half-close passed on, echo server closed
  EXPECT_TRUE(has_decision(*fx.filter, "allowed.test", echo.port(), "connect", true));
}

TEST(Egress, ConnectDenied) {
  Server echo(Server::echo());
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"denied.test", "127.0.0.1"}});
  sys::UniqueFd c;
  std::string head = connect_via_proxy(fx, "denied.test:443", &c);
  EXPECT_NE(head.find("403"), std::string::npos) << head;
  std::string body = testing::read_all(c.get());
  EXPECT_NE(body.find("host denied.test"), std::string::npos) << body;
  EXPECT_NE(body.find("--allow-domain denied.test"), std::string::npos) << body;
  EXPECT_EQ(echo.accepted(), 0);
  EXPECT_EQ(fx.filter->denied_hosts(), std::vector<std::string>{"denied.test:443"});
}

TEST(Egress, Socks5AllowedAndDenied) {
  Server echo(Server::echo());
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}, {"denied.test", "127.0.0.1"}});
  auto c = fx.connect();
  ASSERT_EQ(socks5_connect(c.get(), "allowed.test", echo.port()), 0);
  testing::send_all(c.get(), "over socks");
  EXPECT_EQ(testing::read_n(c.get(), 10), "over socks");

  auto d = fx.connect();
  EXPECT_EQ(socks5_connect(d.get(), "denied.test", echo.port()), 2);  // not allowed by ruleset
  EXPECT_EQ(echo.accepted(), 1);
  EXPECT_TRUE(has_decision(*fx.filter, "denied.test", echo.port(), "socks5", false));
}

TEST(Egress, Socks5IpLiteralNeedsAnAddressRule) {
  Server echo(Server::echo());
  auto fx = start({"allowed.test"}, {}, {{"allowed.test", "127.0.0.1"}});
  auto c = fx.connect();
  testing::send_all(c.get(), std::string("\x05\x01\x00", 3));
  ASSERT_EQ(testing::read_n(c.get(), 2), std::string("\x05\x00", 2));
  std::string req("\x05\x01\x00\x01\x7f\x00\x00\x01", 8);
  req += static_cast<char>(echo.port() >> 8);
  req += static_cast<char>(echo.port() & 0xff);
  testing::send_all(c.get(), req);
  std::string rep = testing::read_n(c.get(), 10);
  ASSERT_EQ(rep.size(), 10u);
  EXPECT_EQ(rep[1], 2);
  EXPECT_EQ(echo.accepted(), 0);
}

TEST(Egress, Socks5RefusesOtherCommandsAndAuth) {
  auto fx = start({"allowed.test"}, {}, {{"allowed.test", "127.0.0.1"}});
  auto c = fx.connect();
  testing::send_all(c.get(), std::string("\x05\x01\x02", 3));  // username/password only
  EXPECT_EQ(testing::read_n(c.get(), 2), std::string("\x05\xff", 2));
  auto b = fx.connect();
  testing::send_all(b.get(), std::string("\x05\x01\x00", 3));
  ASSERT_EQ(testing::read_n(b.get(), 2), std::string("\x05\x00", 2));
  testing::send_all(b.get(), std::string("\x05\x02\x00\x03\x0c" "allowed.test\x00\x50", 19));  // BIND
  std::string rep = testing::read_n(b.get(), 10);
  ASSERT_EQ(rep.size(), 10u);
  EXPECT_EQ(rep[1], 7);
}

TEST(Egress, AllowedNameResolvingToLoopbackIsRefused) {
  // DNS rebinding: the name is allowed, but it resolves to the host's loopback.
  Server web(Server::http());
  auto fx = start({"allowed.test"}, {}, {{"allowed.test", "127.0.0.1"}});
  std::string resp = http_get_via_proxy(fx, "allowed.test", web.port());
  EXPECT_NE(resp.find("403"), std::string::npos) << resp;
  EXPECT_NE(resp.find("loopback"), std::string::npos) << resp;
  EXPECT_NE(resp.find("--allow-domain 127.0.0.1:" + std::to_string(web.port())), std::string::npos) << resp;
  EXPECT_EQ(web.accepted(), 0);
  EXPECT_TRUE(has_decision(*fx.filter, "allowed.test", web.port(), "http", false));
}

TEST(Egress, SpecialAddressesRefusedEvenWithAllowAll) {
  // Loopback stands in for every special range here (the ranges themselves are unit-tested in
  // domain_policy_test.cc): a broken filter must not make this test reach a real address.
  Server web(Server::http());
  auto fx = start({"*"}, {}, {{"inside.test", "127.0.0.1"}});
  sys::UniqueFd c;
  std::string head = connect_via_proxy(fx, "inside.test:" + std::to_string(web.port()), &c);
  EXPECT_NE(head.find("403"), std::string::npos) << head;
  std::string body = testing::read_all(c.get());
  EXPECT_NE(body.find("loopback"), std::string::npos) << body;
  sys::UniqueFd d;
  head = connect_via_proxy(fx, "127.0.0.1:" + std::to_string(web.port()), &d);
  EXPECT_NE(head.find("403"), std::string::npos) << head;
  EXPECT_EQ(web.accepted(), 0);
}

TEST(Egress, AllowAllMinusDenylist) {
  Server echo(Server::echo());
  auto fx = start({"*", "127.0.0.1"}, {"denied.test"},
                  {{"anything.test", "127.0.0.1"}, {"denied.test", "127.0.0.1"}});
  sys::UniqueFd c;
  EXPECT_NE(connect_via_proxy(fx, "anything.test:" + std::to_string(echo.port()), &c).find("200"),
            std::string::npos);
  testing::send_all(c.get(), "ping");
  EXPECT_EQ(testing::read_n(c.get(), 4), "ping");  // (and the server has surely accepted)
  sys::UniqueFd d;
  EXPECT_NE(connect_via_proxy(fx, "denied.test:" + std::to_string(echo.port()), &d).find("403"),
            std::string::npos);
  EXPECT_EQ(echo.accepted(), 1);
}

TEST(Egress, NamesMissingFromTheTestMapDoNotResolve) {
  auto fx = start({"*"}, {}, {{"allowed.test", "127.0.0.1"}});
  sys::UniqueFd c;
  std::string head = connect_via_proxy(fx, "elsewhere.test:443", &c);
  EXPECT_NE(head.find("502"), std::string::npos) << head;
  EXPECT_EQ(fx.filter->stats().upstream_failures, 1u);
}

TEST(Egress, LargeTransferThroughConnect) {
  constexpr std::size_t kBytes = 64u << 20;
  Server src(Server::source(kBytes));
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}});
  sys::UniqueFd c;
  ASSERT_NE(connect_via_proxy(fx, "allowed.test:" + std::to_string(src.port()), &c).find("200"),
            std::string::npos);
  testing::send_all(c.get(), "go\n");
  auto t0 = std::chrono::steady_clock::now();
  std::size_t got = 0;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::recv(c.get(), buf, sizeof(buf), 0);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(got, kBytes);
  c.reset();
  // The relay reports bytes when the pair closes.
  for (int i = 0; i < 100 && fx.filter->stats().bytes_down < kBytes; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(fx.filter->stats().bytes_down, kBytes);
  std::printf("  64 MiB through CONNECT in %.3f s (%.0f MiB/s)\n", s, 64 / s);
}

TEST(Egress, StopDoesNotWaitForIdleClients) {
  auto fx = start({"allowed.test"}, {}, {{"allowed.test", "127.0.0.1"}});
  auto idle = fx.connect();
  testing::send_all(idle.get(), "GET http://allowed.test/ HTTP/1.1\r\n");  // never finishes
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto t0 = std::chrono::steady_clock::now();
  fx.filter->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  fx.filter->stop();  // idempotent
}

TEST(Egress, DecisionsAreCountedAndReported) {
  Server web(Server::http());
  std::vector<DecisionRecord> events;
  std::mutex mu;
  EgressOptions o;
  o.on_decision = [&](const DecisionRecord& r) {
    std::lock_guard lock(mu);
    events.push_back(r);
  };
  auto fx = start({"allowed.test", "127.0.0.1"}, {}, {{"allowed.test", "127.0.0.1"}}, o);
  for (int i = 0; i < 3; ++i) http_get_via_proxy(fx, "allowed.test", web.port());
  http_get_via_proxy(fx, "denied.test", 80);
  auto d = fx.filter->decisions();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].count, 3u);
  EXPECT_TRUE(d[0].allowed);
  EXPECT_EQ(d[1].host, "denied.test");
  EXPECT_EQ(d[1].allow_with, "--allow-domain denied.test");
  std::lock_guard lock(mu);
  EXPECT_EQ(events.size(), 4u);
}

}  // namespace
}  // namespace paddock::net
