// The child's close-on-exec fallback for kernels without close_range's CLOEXEC flag.
#include "engine/child.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace paddock::engine {
namespace {

// In a fork (it leaves descriptors behind): opens /dev/null at 1000 and at HIGH with
// RLIMIT_NOFILE at LIMIT, calls mark_cloexec_from(3) and checks every one of them is marked.
// Exit 0: all marked; 2: HIGH was not.
int marks_up_to(int high, rlim_t limit) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    struct rlimit up = {limit, limit};
    if (setrlimit(RLIMIT_NOFILE, &up) != 0) _exit(10);
    int low = open("/dev/null", O_RDONLY);  // without O_CLOEXEC
    if (low < 3 || dup2(low, high) != high || dup2(low, 1000) != 1000) _exit(11);
    mark_cloexec_from(3);
    for (int fd : {low, 1000, high})
      if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC)) _exit(fd == high ? 2 : 3);
    if (fcntl(0, F_GETFD) & FD_CLOEXEC) _exit(4);  // below the bound nothing is touched
    _exit(0);
  }
  int st = 0;
  if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

TEST(CloseOnExec, MarksEveryOpenDescriptorUpToTheLimit) {
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  ASSERT_GT(rl.rlim_max, 1001u);
  EXPECT_EQ(marks_up_to(static_cast<int>(std::min<rlim_t>(rl.rlim_max, 1 << 20) - 1), rl.rlim_max), 0);
}

// A descriptor far above the 65536 the loop once stopped at. Needs a limit above it, which only
// CAP_SYS_RESOURCE can raise to when the hard limit is lower.
TEST(CloseOnExec, MarksDescriptorsAbove65536) {
  constexpr int kHigh = 70000;
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
  rlim_t limit = rl.rlim_max > kHigh ? rl.rlim_max : kHigh + 1;
  if (rl.rlim_max <= kHigh) {
    struct rlimit up = {limit, limit};
    if (setrlimit(RLIMIT_NOFILE, &up) != 0)
      GTEST_SKIP() << "needs RLIMIT_NOFILE above " << kHigh << " (hard limit " << rl.rlim_max
                   << "; raising it needs CAP_SYS_RESOURCE)";
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
  }
  int r = marks_up_to(kHigh, limit);
  EXPECT_NE(r, 2) << "descriptor " << kHigh << " would survive exec";
  EXPECT_EQ(r, 0);
}

}  // namespace
}  // namespace paddock::engine
