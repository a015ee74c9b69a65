#include "engine/seccomp_policy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace paddock::engine {
namespace {

TEST(Seccomp, ProgramBuildsForBothModes) {
  auto a = build_seccomp_program({false});
  ASSERT_TRUE(a.ok()) << a.error().describe();
  auto b = build_seccomp_program({true});
  ASSERT_TRUE(b.ok()) << b.error().describe();
  EXPECT_GT(a->size(), 20u);
  // Denying inet sockets adds instructions: the option is not ignored.
  EXPECT_GT(b->size(), a->size());
}

TEST(Seccomp, EveryEntrySaysWhy) {
  for (const auto& e : seccomp_denylist({true})) {
    EXPECT_FALSE(e.why.empty()) << e.syscall;
    EXPECT_TRUE(e.action == "EPERM" || e.action == "ENOSYS" || e.action == "EAFNOSUPPORT") << e.syscall;
  }
}

TEST(Seccomp, NamesTheIssueClasses) {
  std::string all;
  for (const auto& e : seccomp_denylist({false})) all += e.syscall + "\n";
  for (const char* must : {"mount", "io_uring_setup", "keyctl", "bpf", "perf_event_open", "userfaultfd",
                           "open_by_handle_at", "kexec_load", "init_module", "ioctl(TIOCSTI)", "ioctl(TIOCLINUX)",
                           "unshare(CLONE_NEWUSER)", "clone(CLONE_NEWUSER)", "clone3", "non-native"})
    EXPECT_NE(all.find(must), std::string::npos) << must;
}

TEST(Seccomp, DocumentedInDocs) {
  std::string here = __FILE__;  // .../src/engine/seccomp_policy_test.cc
  std::ifstream in(here.substr(0, here.rfind("/src/engine/")) + "/docs/seccomp.md");
  ASSERT_TRUE(in) << "docs/seccomp.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  for (const auto& e : seccomp_denylist({true}))
    EXPECT_NE(doc.find(e.syscall), std::string::npos) << e.syscall << " is not in docs/seccomp.md";
}

}  // namespace
}  // namespace paddock::engine
