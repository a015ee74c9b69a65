// The egress filter as the engine runs it: its listeners live in a separate network namespace
// (loopback only) made by a child process, and "sandbox" clients connect from inside it. The
// upstream test servers run on 127.0.0.1 in this process's namespace; the test-only resolve map
// points the test names at them (with a port override, so allowed.test:443 reaches an ephemeral
// port). Never touches any address but loopback: 192.0.2.1 is tried only from inside the
// namespace, which has no route anywhere.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "net/dns_message.h"
#include "net/egress.h"
#include "net/testing_netns.h"
#include "net/testing_servers.h"
#include "net/testing_tls.h"

namespace paddock::net {
namespace {

using testing::Server;

constexpr std::uint32_t kLoopback = 0x7f000001;

// A filter for `p`, serving listeners made in a namespace of their own (skips without one).
void serve_in_netns(const NetworkPolicy& p, const EgressOptions& o, std::unique_ptr<EgressFilter>* filter,
                    std::optional<testing::Netns>* ns) {
  auto f = create_egress_filter(p, o);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  *filter = std::move(*f);
  std::vector<sys::UniqueFd> fds;
  std::string why;
  *ns = testing::Netns::start((*filter)->listeners(), &fds, &why);
  if (!*ns) GTEST_SKIP() << why;
  auto r = (*filter)->serve(std::move(fds));
  ASSERT_TRUE(r.ok()) << r.error().describe();
}

// The decision for host:port, once the filter has recorded it (refusals are read from the
// namespace's packet socket on the filter's own thread), or nullopt after two seconds.
std::optional<DecisionRecord> decision_for(const EgressFilter& f, const std::string& host, std::uint16_t port) {
  for (int i = 0; i < 200; ++i) {
    for (const auto& d : f.decisions()) {
      if (d.host == host && d.port == port) return d;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

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
    serve_in_netns(p, o, &filter_, &ns_);
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

  // That refusal happened in the sandbox's kernel, yet it is recorded and named (issue 30, item
  // 7), with the rule that carries the port ("127.0.0.1" without a port reaches it through the
  // proxy only).
  auto rec = decision_for(*filter_, "127.0.0.1", web_->port());
  ASSERT_TRUE(rec) << "the refused direct connection is not in the decisions";
  EXPECT_FALSE(rec->allowed);
  EXPECT_EQ(rec->protocol, "tcp");
  EXPECT_NE(rec->reason.find("nothing listens on 127.0.0.1:" + std::to_string(web_->port())), std::string::npos)
      << rec->reason;
  EXPECT_EQ(rec->allow_with, "--allow-domain 127.0.0.1:" + std::to_string(web_->port()));
  auto denied = filter_->denied_hosts();
  EXPECT_NE(std::find(denied.begin(), denied.end(), "127.0.0.1:" + std::to_string(web_->port())), denied.end());
}

TEST_F(EgressNetns, DirectConnectionToAnAllowedNameOnAnotherPortIsNamed) {
  std::uint32_t a = resolve("allowed.test");
  ASSERT_NE(a, 0u);
  int err = 0;
  auto c = ns_->tcp(a, 8081, &err);  // allowed.test has a rule, but no listener on 8081
  EXPECT_FALSE(c.valid());
  EXPECT_EQ(err, ECONNREFUSED) << std::strerror(err);
  auto rec = decision_for(*filter_, "allowed.test", 8081);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->allowed);
  EXPECT_EQ(rec->allow_with, "--allow-domain allowed.test:8081");
}

TEST_F(EgressNetns, ConnectionsTheFilterTakesAreNotCountedAsRefused) {
  int err = 0;
  auto c = ns_->tcp(kLoopback, 3128, &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  c.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (const auto& d : filter_->decisions()) EXPECT_NE(d.port, 3128) << d.host << " " << d.reason;
}

// A filter with these allow rules, its listeners in a namespace of their own.
class EgressNetnsLocalhost : public ::testing::Test {
 protected:
  void start(std::vector<std::string> allow) {
    NetworkPolicy p;
    p.mode = NetMode::Filtered;
    p.allow_domains = std::move(allow);
    serve_in_netns(p, {}, &filter_, &ns_);
  }
  void TearDown() override {
    if (filter_) filter_->stop();
  }
  Server web_{Server::http()};
  std::unique_ptr<EgressFilter> filter_;
  std::optional<testing::Netns> ns_;
};

// `--allow-domain localhost:PORT` means the loopback addresses on that port: a client that
// connects to 127.0.0.1 itself (curl localhost:PORT skips the proxy) reaches the host's service.
TEST_F(EgressNetnsLocalhost, LocalhostRuleOpensTheLoopbackAddresses) {
  const std::string port = std::to_string(web_.port());
  start({"localhost:" + port});
  if (IsSkipped() || HasFatalFailure()) return;

  int err = 0;
  auto c = ns_->tcp(kLoopback, web_.port(), &err);
  ASSERT_TRUE(c.valid()) << std::strerror(err);
  testing::send_all(c.get(), "GET /d HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_NE(testing::read_all(c.get()).find("200 OK"), std::string::npos);
  // Through the proxy, by name.
  auto q = ns_->tcp(kLoopback, 3128, &err);
  ASSERT_TRUE(q.valid()) << std::strerror(err);
  testing::send_all(q.get(), "GET http://localhost:" + port + "/p HTTP/1.1\r\nHost: localhost:" + port + "\r\n\r\n");
  EXPECT_NE(testing::read_all(q.get()).find("200 OK"), std::string::npos);
  // To ::1, as curl localhost:PORT tries first where /etc/hosts says "::1 localhost": taken by
  // the IPv6 listener for that port and carried to the host's localhost (127.0.0.1 answers here).
  auto six = ns_->tcp6_loopback(web_.port(), &err);
  ASSERT_TRUE(six.valid()) << std::strerror(err);
  testing::send_all(six.get(), "GET /six HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_NE(testing::read_all(six.get()).find("200 OK"), std::string::npos);
  EXPECT_EQ(web_.accepted(), 3);
  // Another port stays closed.
  auto other = ns_->tcp(kLoopback, 3128, &err);
  testing::send_all(other.get(), "GET http://localhost:1/ HTTP/1.1\r\nHost: localhost:1\r\n\r\n");
  EXPECT_NE(testing::read_all(other.get()).find("403"), std::string::npos);
  filter_->stop();
  for (const auto& d : filter_->decisions()) EXPECT_TRUE(d.allowed || d.port == 1) << d.host << ":" << d.port;
}

// A rule for 127.0.0.1:PORT opens no IPv6 listener: a client's first try at ::1 is refused there
// and it falls back to 127.0.0.1 (so that try is not named); a refusal on a port nothing takes
// on 127.0.0.1 either is named.
TEST_F(EgressNetnsLocalhost, FirstTryAtIpv6LoopbackIsNotNamedWhenIpv4IsTaken) {
  start({"127.0.0.1:" + std::to_string(web_.port())});
  if (IsSkipped() || HasFatalFailure()) return;
  for (const auto& l : filter_->listeners()) EXPECT_FALSE(l.v6) << l.role;
  int err = 0;
  EXPECT_FALSE(ns_->tcp6_loopback(web_.port(), &err).valid());
  EXPECT_EQ(err, ECONNREFUSED);
  EXPECT_FALSE(ns_->tcp6_loopback(1, &err).valid());
  auto named = decision_for(*filter_, "::1", 1);
  ASSERT_TRUE(named);
  EXPECT_EQ(named->allow_with, "--allow-domain [::1]:1");
  filter_->stop();
  for (const auto& d : filter_->decisions()) EXPECT_NE(d.port, web_.port()) << d.host;
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
