// Escape suite, host services: a TCP server on the host's loopback, an abstract unix socket and a
// pathname unix socket in a directory outside the policy. The test starts each server in the
// host's network namespace; the sandbox must not reach any of them.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

bool denied(const Proc& p) { return p.code == 1 && contains(p.out, "DENIED"); }

// A listening socket with a thread that accepts and counts connections.
class Listener {
 public:
  Listener(int fd) : fd_(fd) {
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        ++accepted_;
        close(c);
      }
    });
  }
  ~Listener() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int accepted() const { return accepted_; }

 private:
  int fd_;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

int tcp_listen(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
  EXPECT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof(sa);
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  *port = ntohs(sa.sin_port);
  return fd;
}

int unix_listen(const std::string& name, bool abstract) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  memcpy(sa.sun_path + (abstract ? 1 : 0), name.data(), name.size());
  socklen_t sl = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() + (abstract ? 1 : 0));
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sl), 0) << strerror(errno);
  EXPECT_EQ(listen(fd, 16), 0);
  return fd;
}

TEST(Escape, HostLoopbackTcp) {
  KTEST_REQUIRE_BINARIES();
  World w;
  int port = 0;
  Listener l(tcp_listen(&port));
  auto p = w.probe_run({"connect-tcp", "127.0.0.1", std::to_string(port)});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_EQ(l.accepted(), 0);
  // The way a shell does it: bash's /dev/tcp (dash, /bin/sh on Debian, has none). The same script
  // with --allow-net is the control: it connects, so the refusal above is the network's.
  if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash for /dev/tcp";
  const std::string script = "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) + " && echo CONNECTED; echo END";
  auto q = w.paddock({"run", "--", "/bin/bash", "-c", script});
  EXPECT_TRUE(contains(q.out, "END")) << describe(q);
  EXPECT_FALSE(contains(q.out, "CONNECTED")) << describe(q);
  EXPECT_EQ(l.accepted(), 0);
  auto c = w.paddock({"run", "--allow-net", "--", "/bin/bash", "-c", script});
  EXPECT_TRUE(contains(c.out, "CONNECTED")) << "the control (--allow-net) did not connect\n" << describe(c);
  for (int i = 0; i < 400 && l.accepted() == 0; ++i) usleep(25000);
  EXPECT_GE(l.accepted(), 1) << describe(c);
}

TEST(Escape, HostAbstractUnixSocket) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string name = "paddock-kt-abstract-" + std::to_string(getpid());
  Listener l(unix_listen(name, true));
  auto p = w.probe_run({"connect-abstract", name});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_EQ(l.accepted(), 0);
}

TEST(Escape, HostAbstractUnixSocketWithAllowNet) {
  KTEST_REQUIRE_BINARIES();
  // --allow-net shares the host network namespace: only Landlock's ABI 6 scope keeps abstract
  // sockets of the host out of reach.
  if (landlock_abi() < 6) GTEST_SKIP() << "Landlock ABI " << landlock_abi() << " < 6: no abstract unix socket scoping";
  World w;
  std::string name = "paddock-kt-abstract-net-" + std::to_string(getpid());
  Listener l(unix_listen(name, true));
  auto p = w.probe_run({"--allow-net"}, {"connect-abstract", name});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_EQ(l.accepted(), 0);
}

TEST(Escape, HostPathnameUnixSocket) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir other("paddock-kt-sock");
  std::string path = other / "agent.sock";
  Listener l(unix_listen(path, false));
  auto p = w.probe_run({"connect-unix", path});
  EXPECT_TRUE(denied(p)) << describe(p);
  // A socket inside the sensitive ~/.ssh (an agent socket) with HOME allowed.
  std::string agent = w.home + "/.ssh/agent.sock";
  Listener l2(unix_listen(agent, false));
  auto q = w.probe_run({"--allow", "~"}, {"connect-unix", agent});
  EXPECT_TRUE(denied(q)) << describe(q);
  EXPECT_EQ(l.accepted(), 0);
  EXPECT_EQ(l2.accepted(), 0);
}

}  // namespace
}  // namespace ktest
