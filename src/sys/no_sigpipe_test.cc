// A write to a pipe nobody reads gives EPIPE, and does not kill the process with SIGPIPE (whose
// action here is the default, as in a program that uses libpaddock).
#include "sys/no_sigpipe.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace paddock::sys {
namespace {

TEST(NoSigpipe, AReaderThatLeftGivesEpipeAndTheProcessLives) {
  // In a child: SIGPIPE's default action there would end the child with the signal.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGPIPE, SIG_DFL);
    int p[2];
    if (pipe(p) != 0) _exit(2);
    close(p[0]);
    const ssize_t w = write_without_sigpipe(p[1], "x", 1);
    if (w != -1 || errno != EPIPE) _exit(3);
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE)) _exit(4);  // taken back, not left for later
    sigset_t mask;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask);
    if (sigismember(&mask, SIGPIPE)) _exit(5);  // the mask is as it was
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (WIFEXITED(status)) {
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
}

}  // namespace
}  // namespace paddock::sys
