// The egress filter as the engine runs it: its listeners live in a separate network namespace
// (loopback only) made by a child process, and "sandbox" clients connect from inside it. The
// upstream test servers run on 127.0.0.1 in this process's namespace; the test-only resolve map
// points the test names at them (with a port override, so allowed.test:443 reaches an ephemeral
// port). Never touches any address but loopback: 192.0.2.1 is tried only from inside the
// namespace, which has no route anywhere.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "net/dns_message.h"
#include "net/egress.h"
#include "net/testing_netns.h"
#include "net/testing_servers.h"
#include "net/testing_tls.h"

namespace paddock::net {
namespace {

using testing::Server;

constexpr std::uint32_t kLoopback = 0x7f000001;

class EgressNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    web_ = std::make_unique<Server>(Server::http());
    tls_ = std::make_unique<Server>(Server::tls_hello());
    ssh_ = std::make_unique<Server>(Server::banner_then_echo());
    NetworkPolicy p;
    p.mode = NetMode::Filtered;
    p.allow_domains = {"allowed.test", "tls.test", "ssh.test:22", "127.0.0.1"};
    EgressOptions o;
    auto at = [](std::uint16_t port) { return "127.0.0.1:" + std::to_string(port); };
    o.resolve = {{"allowed.test", at(web_->port())},
                 {"tls.test", at(tls_->port())},
                 {"ssh.test", at(ssh_->port())},
                 {"denied.test", at(web_->port())}};
    auto f = create_egress_filter(p, o);
    ASSERT_TRUE(f.ok()) << f.error().describe();
    filter_ = std::move(*f);
    std::vector<sys::UniqueFd> fds;
    std::string why;
    ns_ = testing::Netns::start(filter_->listeners(), &fds, &why);
    if (!ns_) GTEST_SKIP() << why;
    auto r = filter_->serve(std::move(fds));
    ASSERT_TRUE(r.ok()) << r.error().describe();
  }
  void TearDown() override {
    if (filter_) filter_->stop();
  }

  // Asks the sandbox's DNS server (UDP 127.0.0.1:53 inside the namespace).
  std::vector<std::uint8_t> dns(const std::string& name, std::uint16_t qtype = kDnsTypeA) {
    int err = 0;
    auto s = ns_->udp(kLoopback, 53, &err);
    EXPECT_TRUE(s.valid()) << std::strerror(err);
    auto q = testing::dns_query(0x4242, name, qtype);
    ::send(s.get(), q.data(), q.size(), 0);
    std::vector<std::uint8_t> buf(1500);
    ssize_t n = ::recv(s.get(), buf.data(), buf.size(), 0);
    buf.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return buf;
  }
  // The A record's address (host order) from a reply, or 0.
  static std::uint32_t a_record(const std::vector<std::uint8_t>& r) {
    if (r.size() < 16 || r[7] != 1) return 0;
    const std::uint8_t* a = r.data() + r.size() - 4;
    return static_cast<std::uint32_t>(a[0]) << 24 | a[1] << 16 | a[2] << 8 | a[3];
  }
  std::uint32_t resolve(const std::string& name) { return a_record(dns(name)); }

  std::unique_ptr<Server> web_, tls_, ssh_;
  std::unique_ptr<EgressFilter> filter_;
  std::optional<testing::Netns> ns_;
};

TEST_F(EgressNetns, DnsAnswersAllowedNamesWithSyntheticLoopbackAddresses) {
  std::uint32_t a = resolve("allowed.test");
  std::uint32_t b = resolve("tls.test");
  EXPECT_EQ(a >> 16, 0x7f4du) << "127.77.x.y";
  EXPECT_NE(a, b);
  EXPECT_EQ(resolve("ALLOWED.test"), a);
  auto denied = dns("denied.test");
  ASSERT_GE(denied.size(), 12u);
  EXPECT_EQ(denied[3] & 0x0f, 3) << "NXDOMAIN";
  auto aaaa = dns("allowed.test", kDnsTypeAAAA);
  ASSERT_GE(aaaa.size(), 12u);
  EXPECT_EQ(aaaa[3] & 0x0f, 0);
  EXPECT_EQ(aaaa[7], 0) << "no AAAA records";

  // DNS over TCP gives the same answer.
  int err = 0;
  auto t = ns_->tcp(kLoopback, 53, &err);
  ASSERT_TRUE(t.valid()) << std::strerror(err);
  auto q = testing::dns_query(7, "tls.test");
  std::string msg;
  msg += static_cast<char>(q.size() >> 8);
  msg += static_cast<char>(q.size() & 0xff);
  msg.append(q.begin(), q.end());
  testing::send_all(t.get(), msg);
  std::string len = testing::read_n(t.get(), 2);
  ASSERT_EQ(len.size(), 2u);
  std::string body = testing::read_n(t.get(), static_cast<unsigned char>(len[0]) << 8 | static_cast<unsigned char>(len[1]));
  EXPECT_EQ(a_record(std::vector<std::uint8_t>(body.begin(), body.end())), b);

  bool logged = false;
  for (const auto& d : filter_->decisions()) logged = logged || (d.host == "denied.test" && d.protocol == "dns" && !d.allowed);
  EXPECT_TRUE(logged);
  auto denied_hosts = filter_->denied_hosts();
  EXPECT_NE(std::find(denied_hosts.begin(), denied_hosts.end(), "denied.test"), denied_hosts.end());
}

TEST_F(EgressNetns, TransparentHttpUsesTheNameBehindTheAddress) {
  std::uint32_t a = resolve("allowed.test");
  ASSERT_NE(a, 0u);
  int err = 0;
  auto c = ns_->tcp(a, 80, &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  testing::send_all(c.get(), "GET /t HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n");
  std::string resp = testing::read_all(c.get());
  EXPECT_NE(resp.find("200 OK"), std::string::npos) << resp;
  EXPECT_NE(resp.find("GET /t host=allowed.test"), std::string::npos) << resp;

  // Same address, another Host: refused (no fronting through the allowed name's address).
  auto d = ns_->tcp(a, 80, &err);
  testing::send_all(d.get(), "GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n");
  resp = testing::read_all(d.get());
  EXPECT_NE(resp.find("403"), std::string::npos) << resp;
  EXPECT_EQ(web_->accepted(), 1);
}

TEST_F(EgressNetns, TransparentHttpOnPlainLoopbackUsesTheHostHeader) {
  int err = 0;
  auto c = ns_->tcp(kLoopback, 80, &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  testing::send_all(c.get(), "GET / HTTP/1.1\r\nHost: denied.test\r\n\r\n");
  std::string resp = testing::read_all(c.get());
  EXPECT_NE(resp.find("403"), std::string::npos) << resp;
  EXPECT_NE(resp.find("--allow-domain denied.test"), std::string::npos) << resp;
  EXPECT_EQ(web_->accepted(), 0);
}

TEST_F(EgressNetns, TransparentTlsChecksSniAgainstTheAddress) {
  std::uint32_t a = resolve("tls.test");
  int err = 0;
  auto c = ns_->tcp(a, 443, &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  auto hello = testing::client_hello("tls.test");
  testing::send_all(c.get(), std::string(hello.begin(), hello.end()));
  EXPECT_EQ(testing::read_all(c.get()), "hello tls.test\n");

  auto d = ns_->tcp(a, 443, &err);
  auto bad = testing::client_hello("denied.test");
  testing::send_all(d.get(), std::string(bad.begin(), bad.end()));
  EXPECT_EQ(testing::read_all(d.get()), "");
  EXPECT_EQ(tls_->accepted(), 1);
  bool logged = false;
  for (const auto& r : filter_->decisions()) logged = logged || (r.host == "denied.test" && r.protocol == "tls" && !r.allowed);
  EXPECT_TRUE(logged);
}

TEST_F(EgressNetns, TransparentPortFromRuleServerSpeaksFirst) {
  std::uint32_t a = resolve("ssh.test");
  int err = 0;
  auto c = ns_->tcp(a, 22, &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  // Nothing sent yet: the banner must arrive (the filter does not wait for client bytes on 22).
  EXPECT_EQ(testing::read_n(c.get(), 22), "SSH-2.0-paddock-test\r\n");
  testing::send_all(c.get(), "abc");
  EXPECT_EQ(testing::read_n(c.get(), 3), "abc");

  // ssh.test is allowed on port 22 only.
  auto d = ns_->tcp(a, 443, &err);
  ASSERT_TRUE(d.valid());
  auto hello = testing::client_hello("ssh.test");
  testing::send_all(d.get(), std::string(hello.begin(), hello.end()));
  EXPECT_EQ(testing::read_all(d.get()), "");
  EXPECT_EQ(ssh_->accepted(), 1);
}

TEST_F(EgressNetns, UnknownSyntheticAddressIsRefused) {
  int err = 0;
  auto c = ns_->tcp(0x7f4dc801, 22, &err);  // 127.77.200.1, never handed out
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  EXPECT_EQ(testing::read_all(c.get()), "");
  EXPECT_EQ(ssh_->accepted(), 0);
}

TEST_F(EgressNetns, DirectConnectionsHaveNowhereToGo) {
  int err = 0;
  // A real address: no route inside the namespace.
  auto c = ns_->tcp(0xc0000201, 443, &err);  // 192.0.2.1 (TEST-NET-1)
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(err, ENETUNREACH) << std::strerror(err);
  // The host's loopback server is not the sandbox's loopback.
  auto d = ns_->tcp(kLoopback, web_->port(), &err);
  EXPECT_FALSE(d.valid());
  EXPECT_EQ(err, ECONNREFUSED) << std::strerror(err);
  EXPECT_EQ(web_->accepted(), 0);
}

TEST_F(EgressNetns, ProxyPortInsideTheNamespace) {
  int err = 0;
  auto c = ns_->tcp(kLoopback, 3128, &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  testing::send_all(c.get(), "GET http://allowed.test/p HTTP/1.1\r\nHost: allowed.test\r\n\r\n");
  std::string resp = testing::read_all(c.get());
  EXPECT_NE(resp.find("200 OK"), std::string::npos) << resp;
  EXPECT_NE(resp.find("GET /p host=allowed.test"), std::string::npos) << resp;
}

}  // namespace
}  // namespace paddock::net
