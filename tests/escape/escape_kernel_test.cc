// Escape suite, kernel classes: nested namespaces, mounts, dangerous syscalls, non-native
// syscall ABIs, terminal input injection.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

bool denied(const Proc& p) { return p.code == 1 && contains(p.out, "DENIED"); }

// --- nested namespaces ------------------------------------------------------------------------------

TEST(Escape, NestedNamespaces) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (const char* op : {"unshare-user", "unshare-mount", "clone-user"}) {
    auto p = w.probe_run({op});
    EXPECT_TRUE(denied(p)) << op << "\n" << describe(p);
  }
  auto c3 = w.probe_run({"clone3"});
  EXPECT_TRUE(denied(c3)) << describe(c3);
  EXPECT_TRUE(contains(c3.out, "ENOSYS")) << describe(c3);
  // The tools people would use.
  if (exists("/usr/bin/unshare")) {
    auto u = w.sh("unshare -Ur id 2>&1; echo rc=$?");
    EXPECT_FALSE(contains(u.out, "uid=0(root)") && !is_root()) << describe(u);
    EXPECT_TRUE(contains(u.out, "rc=1") || contains(u.out, "Operation not permitted")) << describe(u);
  }
}

// --- mounts -------------------------------------------------------------------------------------------

TEST(Escape, Mounts) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto a = w.probe_run({"mount-tmpfs", w.project});
  EXPECT_TRUE(denied(a)) << describe(a);
  EXPECT_TRUE(contains(a.out, "EPERM")) << describe(a);
  auto b = w.probe_run({"umount", "/proc"});
  EXPECT_TRUE(denied(b)) << describe(b);
  EXPECT_TRUE(contains(b.out, "EPERM")) << describe(b);
  // Unmounting a mask to reveal what it hides.
  auto c = w.probe_run({"--allow", "~"}, {"umount", w.home + "/.ssh"});
  EXPECT_TRUE(denied(c)) << describe(c);
  auto d = w.sh("mount -o remount,rw /usr 2>&1; touch /usr/paddock-kt 2>&1; echo END");
  EXPECT_FALSE(exists("/usr/paddock-kt")) << describe(d);
}

// --- dangerous syscalls ------------------------------------------------------------------------------

// Real calls, each refused with paddock's exact errno (a kernel EINVAL/EFAULT for the probe's
// arguments is not a refusal). Escape.SeccompDenylistEveryEntry proves each entry on its own.
TEST(Escape, DangerousSyscalls) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::pair<const char*, const char*> calls[] = {
      {"bpf", "EPERM"},           {"perf_event_open", "EPERM"},   {"userfaultfd", "EPERM"},
      {"io_uring_setup", "ENOSYS"}, {"keyctl", "EPERM"},          {"add_key", "EPERM"},
      {"open_by_handle_at", "EPERM"}, {"kexec_load", "EPERM"},    {"init_module", "EPERM"}};
  for (const auto& [op, err] : calls) {
    auto p = w.probe_run({op});
    EXPECT_TRUE(denied(p)) << op << "\n" << describe(p);
    EXPECT_TRUE(contains(p.out, std::string("DENIED ") + err + " ")) << op << ": want " << err << "\n" << describe(p);
  }
}

TEST(Escape, NonNativeSyscallAbis) {
  KTEST_REQUIRE_BINARIES();
#if !defined(__x86_64__)
  GTEST_SKIP() << "int 0x80 and x32 are x86_64 ABIs";
#endif
  World w;
  auto a = w.probe_run({"int80"});
  EXPECT_NE(a.code, 0) << describe(a);
  EXPECT_FALSE(contains(a.out, "OK int80")) << describe(a);
  auto b = w.probe_run({"x32"});
  EXPECT_NE(b.code, 0) << describe(b);
  EXPECT_FALSE(contains(b.out, "OK x32")) << describe(b);
}

// --- terminal injection --------------------------------------------------------------------------------

// Runs paddock with a pty from the test on stdin/stdout/stderr; returns what appeared on the master.
struct PtyRun {
  int code = -1;
  std::string out;
  std::string injected;  // what the test's side could read back as input (should stay empty)
};

PtyRun run_on_pty(const World& w, const std::vector<std::string>& args) {
  PtyRun r;
  int master = -1, slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    ADD_FAILURE() << "openpty";
    return r;
  }
  {
    // Raw: anything injected into this terminal's input queue is readable at once afterwards.
    struct termios t;
    tcgetattr(slave, &t);
    cfmakeraw(&t);
    tcsetattr(slave, TCSANOW, &t);
  }
  std::vector<std::string> argv_s{paddock_bin()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<std::string> env_s{"HOME=" + w.home, "PATH=/usr/local/bin:/usr/bin:/bin", "TERM=xterm"};
  pid_t pid = fork();
  if (pid == 0) {
    setsid();
    ioctl(slave, TIOCSCTTY, 0);
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    close(master);
    if (slave > 2) close(slave);
    if (chdir(w.project.c_str()) != 0) _exit(126);
    std::vector<char*> argv, envp;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  fcntl(master, F_SETFL, O_NONBLOCK);
  int st = 0;
  for (int i = 0; i < 3000; ++i) {
    char buf[4096];
    ssize_t n = read(master, buf, sizeof(buf));
    if (n > 0) r.out.append(buf, static_cast<size_t>(n));
    if (waitpid(pid, &st, WNOHANG) == pid) {
      pid = 0;
      break;
    }
    usleep(10000);
  }
  if (pid > 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
  }
  for (;;) {
    char buf[4096];
    ssize_t n = read(master, buf, sizeof(buf));
    if (n <= 0) break;
    r.out.append(buf, static_cast<size_t>(n));
  }
  // Anything injected into the test's terminal is now in the slave's input queue.
  fcntl(slave, F_SETFL, O_NONBLOCK);
  for (;;) {
    char buf[256];
    ssize_t n = read(slave, buf, sizeof(buf));
    if (n <= 0) break;
    r.injected.append(buf, static_cast<size_t>(n));
  }
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  close(master);
  close(slave);
  return r;
}

TEST(Escape, TerminalInjection) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (const char* op : {"tiocsti", "tiocsti-high", "tioclinux"}) {
    // Into the sandbox's own stdin (its pty) and into every fd it has.
    for (const char* fd : {"0", "1", "2"}) {
      auto r = run_on_pty(w, {"run", "--no-diagnostics", "--", w.probe, op, fd});
      EXPECT_TRUE(contains(r.out, "DENIED EPERM")) << op << " fd " << fd << "\n" << r.out;
      EXPECT_FALSE(contains(r.out, "OK")) << op << " fd " << fd << "\n" << r.out;
      EXPECT_EQ(r.injected, "") << op << " injected into the test's terminal";
    }
  }
  // And with --no-pty (the command has the outer terminal directly): still refused by seccomp.
  auto r = run_on_pty(w, {"run", "--no-pty", "--no-diagnostics", "--", w.probe, "tiocsti", "0"});
  EXPECT_TRUE(contains(r.out, "DENIED EPERM")) << r.out;
  EXPECT_EQ(r.injected, "");
  // Opening /dev/tty gives the sandbox's own terminal at most.
  auto t = run_on_pty(w, {"run", "--no-diagnostics", "--", "/bin/sh", "-c", w.probe + " tiocsti 0 </dev/tty"});
  EXPECT_FALSE(contains(t.out, "OK TIOCSTI")) << t.out;
  EXPECT_EQ(t.injected, "");
}

}  // namespace
}  // namespace ktest
