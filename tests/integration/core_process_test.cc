// Kernel tests of the process model: environment scrubbing, network off/on, exit codes, the
// footer, signal forwarding, --exec, and the Landlock + seccomp fallback.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

using namespace std::chrono_literals;

// A TCP listener on host 127.0.0.1 (an ephemeral port), accepting in the background.
class HostTcpServer {
 public:
  HostTcpServer() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 || listen(fd_, 16) != 0) ADD_FAILURE() << "listen";
    socklen_t len = sizeof(sa);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
    port_ = ntohs(sa.sin_port);
  }
  ~HostTcpServer() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(CoreEnv, SecretsScrubbed) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  o.env["AWS_SECRET_ACCESS_KEY"] = "aws-secret-value";
  o.env["ANTHROPIC_API_KEY"] = "anthropic-secret-value";
  o.env["GITHUB_TOKEN"] = "gh-secret-value";
  o.env["LANG"] = "C.UTF-8";
  auto p = w.paddock({"run", "--", w.probe, "env"}, o);
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(contains(p.out, "secret-value")) << describe(p);
  EXPECT_TRUE(contains(p.out, "PATH=")) << describe(p);
  EXPECT_TRUE(contains(p.out, "HOME=" + w.home)) << describe(p);
  EXPECT_TRUE(contains(p.out, "LANG=C.UTF-8")) << describe(p);
}

TEST(CoreEnv, EnvFlagPasses) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  o.env["MY_TOKEN"] = "passed-through";
  o.env["OTHER_TOKEN"] = "not-passed";
  auto p = w.paddock({"run", "--env", "MY_TOKEN", "--env", "SET_HERE=value=with=eq", "--", w.probe, "env"}, o);
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "MY_TOKEN=passed-through")) << describe(p);
  EXPECT_TRUE(contains(p.out, "SET_HERE=value=with=eq")) << describe(p);
  EXPECT_FALSE(contains(p.out, "not-passed")) << describe(p);
}

TEST(CoreNet, OffByDefault) {
  KTEST_REQUIRE_BINARIES();
  World w;
  HostTcpServer srv;
  auto p = w.probe_run({"connect-tcp", "127.0.0.1", std::to_string(srv.port())});
  EXPECT_EQ(p.code, 1) << describe(p);
  EXPECT_TRUE(contains(p.out, "DENIED ECONNREFUSED")) << describe(p);  // its own loopback, nothing listening
  // Only loopback: no other interface.
  auto ifs = w.sh("cat /proc/net/dev");
  ASSERT_EQ(ifs.code, 0) << describe(ifs);
  for (const auto& line : split_lines(ifs.out)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    EXPECT_EQ(name, "lo") << describe(ifs);
  }
  // Outside addresses are unreachable (no route), tried on a documentation address without traffic.
  auto out = w.probe_run({"connect-tcp", "192.0.2.1", "80"});
  EXPECT_EQ(out.code, 1) << describe(out);
  EXPECT_TRUE(contains(out.out, "ENETUNREACH")) << describe(out);
}

TEST(CoreNet, AllowNetReachesHostLoopback) {
  KTEST_REQUIRE_BINARIES();
  World w;
  HostTcpServer srv;
  auto p = w.probe_run({"--allow-net"}, {"connect-tcp", "127.0.0.1", std::to_string(srv.port())});
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "OK connect")) << describe(p);
}

TEST(CoreExit, CodesPropagate) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto e3 = w.probe_run({"--no-diagnostics"}, {"exit", "3"});
  EXPECT_EQ(e3.code, 3) << describe(e3);
  auto sig = w.probe_run({"raise", "10"});  // SIGUSR1
  EXPECT_EQ(sig.code, 128 + 10) << describe(sig);
  auto kill9 = w.probe_run({"raise", "9"});
  EXPECT_EQ(kill9.code, 128 + 9) << describe(kill9);
  auto nf = w.paddock({"run", "--", "no-such-command-paddock-kt"});
  EXPECT_EQ(nf.code, 127) << describe(nf);
  EXPECT_TRUE(contains(nf.err, "no-such-command-paddock-kt")) << describe(nf);
  EXPECT_TRUE(contains(nf.err, "not found")) << describe(nf);
  write_file(w.project + "/not-exec.sh", "#!/bin/sh\necho hi\n", 0644);
  auto ne = w.paddock({"run", "--", w.project + "/not-exec.sh"});
  EXPECT_EQ(ne.code, 126) << describe(ne);
}

TEST(CoreFooter, OnFailureOnly) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto fail = w.probe_run({"exit", "3"});
  ASSERT_EQ(fail.code, 3) << describe(fail);
  auto lines = split_lines(fail.err);
  int footer = 0;
  for (const auto& l : lines) {
    if (l.rfind("[paddock]", 0) == 0) ++footer;
    else if (!l.empty()) ADD_FAILURE() << "stderr line without [paddock]: " << l << "\n" << describe(fail);
  }
  EXPECT_GE(footer, 3) << describe(fail);
  EXPECT_TRUE(contains(fail.err, "may be due to")) << describe(fail);
  EXPECT_TRUE(contains(fail.err, "--allow-net")) << describe(fail);

  auto ok = w.probe_run({"exit", "0"});
  EXPECT_EQ(ok.code, 0) << describe(ok);
  EXPECT_FALSE(contains(ok.err, "[paddock]")) << describe(ok);

  auto sig = w.probe_run({"raise", "15"});
  EXPECT_EQ(sig.code, 143) << describe(sig);
  EXPECT_FALSE(contains(sig.err, "[paddock]")) << describe(sig);

  auto quiet = w.probe_run({"--no-diagnostics"}, {"exit", "3"});
  EXPECT_EQ(quiet.code, 3) << describe(quiet);
  EXPECT_FALSE(contains(quiet.err, "[paddock]")) << describe(quiet);
}

// Issue 30, item 8: "command not found" and a file that is not executable get a short footer
// that names what failed (and the PATH), not the fourteen lines of policy; the grants name
// --allow-domain; --quiet-footer and a profile's [footer] quiet = true turn it off.
TEST(CoreFooter, ExecFailuresAreShortAndNamed) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto nf = w.paddock({"run", "--env", "PATH=/usr/bin:/bin", "--", "no-such-command-paddock-kt"});
  EXPECT_EQ(nf.code, 127) << describe(nf);
  EXPECT_TRUE(contains(nf.err, "[paddock] `no-such-command-paddock-kt` was not found in the sandbox's PATH "
                               "(exit code 127): /usr/bin:/bin")) << describe(nf);
  EXPECT_FALSE(contains(nf.err, "Sandbox policy")) << describe(nf);
  int footer = 0;
  for (const auto& l : split_lines(nf.err)) footer += l.rfind("[paddock]", 0) == 0;
  EXPECT_LE(footer, 3) << describe(nf);

  write_file(w.project + "/not-exec.sh", "#!/bin/sh\necho hi\n", 0644);
  auto ne = w.paddock({"run", "--", w.project + "/not-exec.sh"});
  EXPECT_EQ(ne.code, 126) << describe(ne);
  EXPECT_TRUE(contains(ne.err, "`" + w.project + "/not-exec.sh` could not be executed in the sandbox: "
                               "Permission denied (exit code 126)")) << describe(ne);
  EXPECT_TRUE(contains(ne.err, "paddock why --path " + w.project + "/not-exec.sh --op exec")) << describe(ne);
  EXPECT_FALSE(contains(ne.err, "Sandbox policy")) << describe(ne);

  // A shell's own 127 keeps the whole footer, which says what the code means and names the grants.
  auto sh = w.paddock({"run", "--", "/bin/sh", "-c", "no-such-command-paddock-kt"});
  EXPECT_EQ(sh.code, 127) << describe(sh);
  EXPECT_TRUE(contains(sh.err, "Command exited with code 127 (a shell's \"command not found\"")) << describe(sh);
  EXPECT_TRUE(contains(sh.err, "--allow-domain <host>")) << describe(sh);

  auto quiet = w.paddock({"run", "--quiet-footer", "--", "no-such-command-paddock-kt"});
  EXPECT_EQ(quiet.code, 127) << describe(quiet);
  EXPECT_FALSE(contains(quiet.err, "[paddock]")) << describe(quiet);
  EXPECT_TRUE(contains(quiet.err, "command not found")) << "the error itself stays: " << describe(quiet);

  write_file(w.home + "/.config/paddock/profiles/quiet.toml", "[footer]\nquiet = true\n");
  auto prof = w.probe_run({"--profile", "quiet"}, {"exit", "3"});
  EXPECT_EQ(prof.code, 3) << describe(prof);
  EXPECT_FALSE(contains(prof.err, "[paddock]")) << describe(prof);
  write_file(w.home + "/.config/paddock/profiles/loud.toml", "[footer]\nquiet = false\n");
  auto loud = w.probe_run({"--profile", "loud"}, {"exit", "3"});
  EXPECT_TRUE(contains(loud.err, "may be due to")) << describe(loud);
  write_file(w.home + "/.config/paddock/profiles/typo.toml", "[footer]\nquite = true\n");
  auto typo = w.probe_run({"--profile", "typo"}, {"exit", "3"});
  EXPECT_EQ(typo.code, 2) << describe(typo);
  EXPECT_TRUE(contains(typo.err, "typo.toml:2:1")) << describe(typo);
}

TEST(CoreSignals, SigtermForwarded) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  Started s = start({paddock_bin(), "run", "--", "/bin/sh", "-c",
                     "trap 'echo GOT-TERM; exit 7' TERM; echo READY; while :; do sleep 0.05; done"},
                    o);
  ASSERT_TRUE(s.wait_for_out("READY", 20s)) << "sandbox did not start";
  std::this_thread::sleep_for(300ms);
  kill(s.pid(), SIGTERM);
  Proc p = s.finish(20s);
  EXPECT_FALSE(p.timed_out) << describe(p);
  EXPECT_TRUE(contains(p.out, "GOT-TERM")) << describe(p);
  EXPECT_EQ(p.code, 7) << describe(p);

  // A command that dies of it: paddock exits 128+15. That is also what paddock would give if it
  // died of the SIGTERM itself, so the command records the signal it received (in its handler,
  // before dying of it with the default action) and the record is checked.
  const std::string record = w.project + "/term-record";
  Started s2 = start({paddock_bin(), "run", "--", w.probe, "term-record", record}, o);
  ASSERT_TRUE(s2.wait_for_out("READY", 20s)) << "sandbox did not start";
  kill(s2.pid(), SIGTERM);
  Proc p2 = s2.finish(20s);
  EXPECT_FALSE(p2.timed_out) << describe(p2);
  EXPECT_EQ(read_file(record), "SIGTERM\n") << "the command did not receive the SIGTERM\n" << describe(p2);
  EXPECT_EQ(p2.code, 128 + SIGTERM) << describe(p2);
}

// A SIGTERM that arrives as soon as the command runs (it has printed) is forwarded too, not
// taken by paddock's default action.
TEST(CoreSignals, SigtermRightAfterStartForwarded) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  for (int i = 0; i < 5; ++i) {
    Started s = start({paddock_bin(), "run", "--", "/bin/sh", "-c",
                       "trap 'echo GOT-TERM; exit 7' TERM; echo READY; while :; do sleep 0.05; done"},
                      o);
    ASSERT_TRUE(s.wait_for_out("READY", 20s)) << "sandbox did not start";
    kill(s.pid(), SIGTERM);
    Proc p = s.finish(20s);
    EXPECT_EQ(p.code, 7) << "attempt " << i << "\n" << describe(p);
    if (p.code != 7) break;
  }
}

TEST(CoreExec, ReplacesPaddockAndConfines) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  // The command's pid is paddock's own pid (it replaced paddock).
  Started s = start({paddock_bin(), "run", "--exec", "--", "/bin/sh", "-c", "echo PID=$$"}, o);
  pid_t paddock_pid = s.pid();
  Proc p = s.finish(30s);
  ASSERT_EQ(p.code, 0) << describe(p);
  if (contains(p.out, "PID=1\n")) {
    // A pid namespace makes the pid inside 1; then compare host views instead: NSpid.
    ADD_FAILURE() << "--exec runs in a new pid namespace; cannot be the same process\n" << describe(p);
  }
  EXPECT_TRUE(contains(p.out, "PID=" + std::to_string(paddock_pid) + "\n")) << "paddock pid " << paddock_pid << "\n"
                                                                             << describe(p);
  // Still confined.
  auto sec = w.paddock({"run", "--exec", "--allow", "~", "--", w.probe, "read", w.ssh_key}, o);
  EXPECT_EQ(sec.code, 1) << describe(sec);
  EXPECT_FALSE(contains(sec.out, World::kSecret)) << describe(sec);
  auto sys = w.paddock({"run", "--exec", "--", w.probe, "write", "/etc/paddock-kt"}, o);
  EXPECT_EQ(sys.code, 1) << describe(sys);
  auto ok = w.paddock({"run", "--exec", "--", w.probe, "write", w.project + "/x"}, o);
  EXPECT_EQ(ok.code, 0) << describe(ok);
}

TEST(CoreFallback, WarnsAndStillConfines) {
  KTEST_REQUIRE_BINARIES();
  if (landlock_abi() < 1) GTEST_SKIP() << "no Landlock: the fallback has nothing to confine with";
  World w;
  auto o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  auto ok = w.paddock({"run", "--", w.probe, "write", w.project + "/fb.txt", "fallback"}, o);
  EXPECT_EQ(ok.code, 0) << describe(ok);
  EXPECT_EQ(read_file(w.project + "/fb.txt"), "fallback");
  int warn = 0;
  for (const auto& l : split_lines(ok.err))
    if (contains(l, "[paddock]") && (contains(l, "namespace"))) ++warn;
  EXPECT_GE(warn, 1) << describe(ok);
  // Secrets inside an allowed parent stay unreadable; host writes outside fail.
  auto sec = w.paddock({"run", "--allow", "~", "--", w.probe, "read", w.ssh_key}, o);
  EXPECT_EQ(sec.code, 1) << describe(sec);
  EXPECT_FALSE(contains(sec.out, World::kSecret)) << describe(sec);
  TempDir other("paddock-kt-other");
  auto wr = w.paddock({"run", "--", w.probe, "write", other / "x"}, o);
  EXPECT_EQ(wr.code, 1) << describe(wr);
  EXPECT_FALSE(exists(other / "x"));
  auto sys = w.paddock({"run", "--", w.probe, "write", "/etc/paddock-kt"}, o);
  EXPECT_EQ(sys.code, 1) << describe(sys);
  EXPECT_FALSE(exists("/etc/paddock-kt"));
}

TEST(CoreFallback, RequireNamespacesRefuses) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  auto p = w.paddock({"run", "--require-namespaces", "--", w.probe, "write", w.project + "/never"}, o);
  EXPECT_NE(p.code, 0) << describe(p);
  EXPECT_FALSE(exists(w.project + "/never")) << describe(p);
  EXPECT_TRUE(contains(p.err, "namespace")) << describe(p);
}

}  // namespace
}  // namespace ktest

namespace ktest {
namespace {

// --exec leaves no parent to stop detached processes (issue 12 item 9): a run with a writable path
// says so, naming the path; a read-only run does not; --help says it too.
TEST(CoreExec, WarnsThatDetachedProcessesOutliveTheCommand) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  auto rw = w.paddock({"run", "--exec", "--", "/bin/true"}, o);
  EXPECT_EQ(rw.code, 0) << describe(rw);
  EXPECT_TRUE(contains(rw.err, "[paddock] warning: --exec leaves no parent")) << describe(rw);
  EXPECT_TRUE(contains(rw.err, w.project)) << describe(rw);
  auto plain = w.paddock({"run", "--", "/bin/true"}, o);
  EXPECT_FALSE(contains(plain.err, "--exec leaves")) << describe(plain);
  auto help = w.paddock({"run", "--help"}, o);
  EXPECT_TRUE(contains(help.out, "processes it detaches are not stopped")) << describe(help);
}

}  // namespace
}  // namespace ktest
