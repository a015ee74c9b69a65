// Issue 12, item 7: with `--allow-net --deny-domain X` (every public address allowed), the host's
// own non-loopback addresses are refused like loopback: a service bound to 0.0.0.0 on the user's
// machine is reachable there. The kernel test runs in a user + network namespace it creates,
// where 203.0.113.7 (TEST-NET-3) is put on `lo`: nothing leaves the namespace.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "net/upstream.h"

namespace paddock::net {
namespace {

DomainPolicy allow_net_minus(const std::vector<std::string>& extra_allow) {
  NetworkPolicy np;
  np.mode = NetMode::Filtered;
  np.allow_domains = {"*"};
  for (const auto& a : extra_allow) np.allow_domains.push_back(a);
  np.deny_domains = {"denied.test"};
  auto p = DomainPolicy::create(np);
  EXPECT_TRUE(p.ok());
  return *p;
}

TEST(HostAddress, RefusedUnlessARuleNamesIt) {
  const IpAddr own = *IpAddr::parse("203.0.113.7");
  const std::vector<IpAddr> host = {*IpAddr::parse("127.0.0.1"), own};
  auto p = allow_net_minus({});
  Verdict by_name = p.decide_address(own, "pub.test", 80, &host);
  EXPECT_FALSE(by_name.allowed);
  EXPECT_NE(by_name.reason.find("an address of this host"), std::string::npos) << by_name.reason;
  EXPECT_EQ(by_name.suggestion, "--allow-domain 203.0.113.7:80");
  EXPECT_FALSE(p.decide_address(own, "", 80, &host).allowed);
  EXPECT_FALSE(p.decide_address(*IpAddr::parse("::ffff:203.0.113.7"), "", 80, &host).allowed);
  EXPECT_TRUE(p.decide_address(*IpAddr::parse("203.0.113.8"), "pub.test", 80, &host).allowed);
  EXPECT_TRUE(allow_net_minus({"203.0.113.7"}).decide_address(own, "", 80, &host).allowed);
}

// In a namespace of its own: the address is really on an interface and a server listens there.
// connect_upstream reads the interface list itself, at each connection.
TEST(HostAddress, ConnectUpstreamRefusesTheHostsOwnAddress) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) _exit(77);
    std::ofstream("/proc/self/setgroups") << "deny";
    std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1\n";
    std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1\n";
    if (std::system("ip link set lo up && ip addr add 203.0.113.7/32 dev lo") != 0) _exit(78);
    int srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = INADDR_ANY;  // as a host service bound to 0.0.0.0
    if (bind(srv, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 || listen(srv, 4) != 0) _exit(79);
    socklen_t sl = sizeof(sa);
    getsockname(srv, reinterpret_cast<sockaddr*>(&sa), &sl);
    const std::uint16_t port = ntohs(sa.sin_port);
    int code = 0;
    ResolveMap map;
    map["pub.test"] = ResolveEntry{{*IpAddr::parse("203.0.113.7")}, 0};
    auto by_name = connect_upstream(allow_net_minus({}), "pub.test", port, map, std::chrono::seconds(5), -1);
    if (by_name.status != UpstreamOutcome::Status::Denied) code |= 1;
    if (by_name.verdict.reason.find("an address of this host") == std::string::npos) code |= 2;
    auto literal = connect_upstream(allow_net_minus({}), "203.0.113.7", port, map, std::chrono::seconds(5), -1);
    if (literal.status != UpstreamOutcome::Status::Denied) code |= 4;
    auto named = connect_upstream(allow_net_minus({"203.0.113.7"}), "203.0.113.7", port, map, std::chrono::seconds(5), -1);
    if (named.status != UpstreamOutcome::Status::Connected) code |= 8;
    _exit(code);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  if (WEXITSTATUS(st) == 77) GTEST_SKIP() << "no user + network namespace here";
  if (WEXITSTATUS(st) == 78) GTEST_SKIP() << "ip (iproute2) could not configure the test namespace";
  EXPECT_EQ(WEXITSTATUS(st), 0) << "bits: 1 name not denied, 2 reason, 4 literal not denied, 8 named rule did not connect";
}

}  // namespace
}  // namespace paddock::net
