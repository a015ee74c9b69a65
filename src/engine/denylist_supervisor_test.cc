#include "engine/denylist_supervisor.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>

namespace paddock::engine {
namespace {

TEST(DenylistSupervisor, AnswersWithTheEntrysErrnoAndNamesIt) {
  std::uint64_t newuser[6] = {CLONE_NEWUSER, 0, 0, 0, 0, 0};
  DenylistAnswer a = denylist_answer({false, true}, SYS_unshare, newuser);
  EXPECT_EQ(a.error, EPERM);
  EXPECT_EQ(a.denial.layer, Denial::Layer::Seccomp);
  EXPECT_EQ(a.denial.what, "unshare(CLONE_NEWUSER)");
  EXPECT_EQ(a.denial.op, "syscall");
  EXPECT_EQ(a.denial.rule.rfind("denylist (EPERM): ", 0), 0u) << a.denial.rule;
  EXPECT_TRUE(a.denial.allow_with.empty());
  std::uint64_t none[6] = {0, 0, 0, 0, 0, 0};
  a = denylist_answer({false, true}, SYS_io_uring_setup, none);
  EXPECT_EQ(a.error, ENOSYS);  // libc and runtimes fall back on ENOSYS: the answer keeps it
  EXPECT_EQ(a.denial.what, "io_uring_setup");
}

// Whatever reaches the supervisor is refused: a call no entry names (against the list) gets EPERM,
// never success.
TEST(DenylistSupervisor, NeverAnswersSuccess) {
  std::uint64_t none[6] = {0, 0, 0, 0, 0, 0};
  DenylistAnswer a = denylist_answer({false, true}, SYS_getpid, none);
  EXPECT_EQ(a.error, EPERM);
  EXPECT_EQ(a.denial.what, "syscall " + std::to_string(SYS_getpid));
}

}  // namespace
}  // namespace paddock::engine
