// Kernel tests of interactive use: with a terminal on stdin, the command gets its own
// pseudo-terminal of the same size, and Ctrl-C reaches it.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// paddock with a real terminal on stdin/stdout/stderr: the test holds the master side.
class OnTerminal {
 public:
  OnTerminal(const World& w, const std::vector<std::string>& args, unsigned short rows, unsigned short cols) {
    winsize ws{};
    ws.ws_row = rows;
    ws.ws_col = cols;
    std::vector<std::string> env_s{"HOME=" + w.home, "PATH=/usr/local/bin:/usr/bin:/bin", "TERM=xterm"};
    std::vector<std::string> argv_s{paddock_bin()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    pid_ = forkpty(&master_, nullptr, nullptr, &ws);
    if (pid_ == 0) {
      if (chdir(w.project.c_str()) != 0) _exit(126);
      std::vector<char*> argv, envp;
      for (auto& a : argv_s) argv.push_back(a.data());
      argv.push_back(nullptr);
      for (auto& e : env_s) envp.push_back(e.data());
      envp.push_back(nullptr);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    if (pid_ < 0) ADD_FAILURE() << "forkpty: " << strerror(errno);
    fcntl(master_, F_SETFL, O_NONBLOCK);
  }
  ~OnTerminal() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }
  // Reads until `needle` appears or the timeout passes.
  bool wait_for(const std::string& needle, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (out_.find(needle) == std::string::npos && Clock::now() < deadline) {
      pollfd p{master_, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) {
        char buf[4096];
        ssize_t n = read(master_, buf, sizeof(buf));
        if (n > 0) out_.append(buf, static_cast<size_t>(n));
        else if (n < 0 && errno == EIO) break;  // all slave ends closed
      }
    }
    return out_.find(needle) != std::string::npos;
  }
  void send(const std::string& s) { ASSERT_EQ(write(master_, s.data(), s.size()), static_cast<ssize_t>(s.size())); }
  // Waits for paddock to exit (draining output); returns the shell-style code, -1 on timeout.
  int wait_exit(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      int st = 0;
      pid_t r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        pid_ = 0;
        wait_for("\x01never", 100ms);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      wait_for("\x01never", 50ms);
    }
    return -1;
  }
  const std::string& out() const { return out_; }
  void resize(unsigned short rows, unsigned short cols) {
    winsize ws{};
    ws.ws_row = rows;
    ws.ws_col = cols;
    ASSERT_EQ(ioctl(master_, TIOCSWINSZ, &ws), 0);
  }

 private:
  pid_t pid_ = -1;
  int master_ = -1;
  std::string out_;
};

TEST(CorePty, OwnTerminalWithRelayedSize) {
  KTEST_REQUIRE_BINARIES();
  World w;
  OnTerminal t(w, {"run", "--", "/bin/sh", "-c", "tty; stty size; echo DONE"}, 37, 111);
  ASSERT_TRUE(t.wait_for("DONE", 30s)) << t.out();
  EXPECT_EQ(t.wait_exit(10s), 0) << t.out();
  EXPECT_TRUE(contains(t.out(), "/dev/pts/")) << t.out();
  EXPECT_TRUE(contains(t.out(), "37 111")) << t.out();
  EXPECT_FALSE(contains(t.out(), "not a tty")) << t.out();
}

TEST(CorePty, CtrlCInterrupts) {
  KTEST_REQUIRE_BINARIES();
  World w;
  OnTerminal t(w, {"run", "--", "/bin/sh", "-c", "echo READY; exec sleep 100"}, 24, 80);
  ASSERT_TRUE(t.wait_for("READY", 30s)) << t.out();
  std::this_thread::sleep_for(200ms);
  auto before = Clock::now();
  t.send("\x03");
  int code = t.wait_exit(5s);
  double secs = std::chrono::duration<double>(Clock::now() - before).count();
  EXPECT_EQ(code, 128 + SIGINT) << t.out();
  EXPECT_LT(secs, 5.0);
}

TEST(CorePty, ResizeRelayed) {
  KTEST_REQUIRE_BINARIES();
  World w;
  OnTerminal t(w, {"run", "--", "/bin/sh", "-c", "trap 'stty size; exit 0' WINCH; echo READY; while :; do sleep 0.05; done"},
               24, 80);
  ASSERT_TRUE(t.wait_for("READY", 30s)) << t.out();
  // Resize the outer terminal: the kernel sends SIGWINCH to paddock (the foreground group), which
  // must copy the size to the inner terminal, whose kernel then signals the command.
  std::this_thread::sleep_for(200ms);
  t.resize(50, 120);
  EXPECT_TRUE(t.wait_for("50 120", 10s)) << t.out();
  EXPECT_EQ(t.wait_exit(10s), 0) << t.out();
}

}  // namespace
}  // namespace ktest
