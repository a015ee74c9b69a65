// Network off on every path that runs a command (issue 19, A): the namespace path (a new,
// empty network namespace), --exec (its own unshare) and the fallback without user namespaces
// (seccomp's socket rule), with and without --exec. Each tries a TCP listener the test opens on
// the host's 127.0.0.1, and each has an --allow-net control that reaches the same listener, so a
// refusal for any other reason (a probe that cannot connect at all) fails the control.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

using namespace std::chrono_literals;

// A listener on 127.0.0.1 at a port the kernel chose, counting accepted connections.
class LoopbackListener {
 public:
  LoopbackListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0 && listen(fd_, 64) == 0;
    socklen_t len = sizeof(sa);
    if (ok_ && getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len) == 0) port_ = ntohs(sa.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        ++accepted_;
        close(c);
      }
    });
  }
  ~LoopbackListener() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  bool ok() const { return ok_ && port_ > 0; }
  std::string port() const { return std::to_string(port_); }
  int accepted() const { return accepted_; }
  // Accepts happen on the thread: wait for at least `n` (generous deadline, no fixed sleep).
  bool wait_accepted(int n) const {
    for (int i = 0; i < 400 && accepted_ < n; ++i) std::this_thread::sleep_for(25ms);
    return accepted_ >= n;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// Runs the probe's connect with `flags`; expects a refusal, then the same with --allow-net
// expects the connection to arrive.
void expect_off_then_on(const World& w, RunOpts o, const std::vector<std::string>& flags, const char* mode) {
  LoopbackListener l;
  ASSERT_TRUE(l.ok()) << "cannot listen on 127.0.0.1";
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", w.probe, "connect-tcp", "127.0.0.1", l.port()});
    return w.paddock(args, o);
  };
  Proc off = run({});
  EXPECT_EQ(off.code, 1) << mode << "\n" << describe(off);
  EXPECT_TRUE(contains(off.out, "DENIED")) << mode << "\n" << describe(off);
  EXPECT_EQ(l.accepted(), 0) << mode << ": the sandbox reached the host's 127.0.0.1 listener\n" << describe(off);

  Proc on = run({"--allow-net"});
  EXPECT_EQ(on.code, 0) << mode << " --allow-net (the control)\n" << describe(on);
  EXPECT_TRUE(contains(on.out, "OK connect")) << mode << " --allow-net\n" << describe(on);
  EXPECT_TRUE(l.wait_accepted(1)) << mode << " --allow-net: the listener saw no connection\n" << describe(on);
}

TEST(CoreExec, NetworkOff) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "user namespaces unavailable: CoreFallback.NetworkOffUnderExec covers --exec here";
  World w;
  expect_off_then_on(w, w.opts(), {"--exec"}, "namespaces, --exec");
}

TEST(CoreFallback, NetworkOff) {
  KTEST_REQUIRE_BINARIES();
  if (landlock_abi() < 1) GTEST_SKIP() << "no Landlock: the fallback has nothing to confine with";
  World w;
  auto o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  expect_off_then_on(w, o, {}, "fallback");
}

TEST(CoreFallback, NetworkOffUnderExec) {
  KTEST_REQUIRE_BINARIES();
  if (landlock_abi() < 1) GTEST_SKIP() << "no Landlock: the fallback has nothing to confine with";
  World w;
  auto o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  expect_off_then_on(w, o, {"--exec"}, "fallback, --exec");
}

}  // namespace
}  // namespace ktest
