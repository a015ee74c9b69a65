// A run that cannot start leaves no descriptor behind (issue 19: the capture's first pipe pair
// leaked when the second pipe2 failed). Driven by RLIMIT_NOFILE: for each soft limit just above
// what the process holds, one attempt in a fork, so that every early step that allocates a
// descriptor (the capture pipes, the report pipe, the cgroup files) gets its turn to fail.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "helpers/test_util.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace ktest {
namespace {

constexpr int kScan = 4096;  // descriptors looked at; the limits tried stay far below

// The open descriptors, without opening one (no /proc listing: the limit may be reached).
std::string open_fds() {
  std::string s;
  for (int fd = 0; fd < kScan; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) s += std::to_string(fd) + " ";
  return s;
}

TEST(CoreFds, FailedStartLeavesNoDescriptor) {
  auto ctx = paddock::HostContext::from_process();
  ASSERT_TRUE(ctx.ok()) << ctx.error().describe();
  ctx->cwd = "/";
  paddock::PolicyBuilder b(*ctx);
  b.cwd_access(paddock::Access::None);
  auto policy = b.build();
  ASSERT_TRUE(policy.ok()) << policy.error().describe();
  paddock::RunOptions o;
  o.argv = {"/bin/true"};
  // A first run with the ordinary limit: whatever paddock keeps for the process's lifetime (host
  // features, a cgroup parent) is open before the forks below, and is not counted as a leak.
  auto warm = paddock::run_capture(*policy, o);
  ASSERT_TRUE(warm.ok()) << warm.error().describe();
  paddock::wait_background_cleanup();

  // Descriptors are allocated lowest first, into any hole: every limit from the lowest up to a
  // little above the highest descriptor held.
  int held = 0;
  for (int fd = 0; fd < kScan; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) held = fd + 1;
  int failures_seen = 0;
  for (int limit = 3; limit <= held + 24; ++limit) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(p[0]);
      std::string before = open_fds();
      struct rlimit rl;
      getrlimit(RLIMIT_NOFILE, &rl);
      rl.rlim_cur = static_cast<rlim_t>(limit);
      if (setrlimit(RLIMIT_NOFILE, &rl) != 0) _exit(3);
      auto r = paddock::run_capture(*policy, o);
      if (r.ok()) {
        _exit(0);
      }
      std::string after = open_fds();
      if (after == before) _exit(1);
      std::string msg = r.error().describe() + "\n  before: " + before + "\n  after:  " + after;
      (void)!write(p[1], msg.data(), msg.size());
      _exit(2);
    }
    close(p[1]);
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = read(p[0], buf, sizeof(buf))) > 0;) msg.append(buf, static_cast<std::size_t>(n));
    close(p[0]);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st)) << "limit " << limit;
    ASSERT_NE(WEXITSTATUS(st), 3) << "limit " << limit;
    EXPECT_NE(WEXITSTATUS(st), 2) << "with RLIMIT_NOFILE " << limit << " the failed start leaked:\n  " << msg;
    if (WEXITSTATUS(st) != 0) ++failures_seen;
  }
  // The scan must have made starts fail, or it showed nothing.
  EXPECT_GT(failures_seen, 0) << "no limit tried made the start fail";
}

}  // namespace
}  // namespace ktest
