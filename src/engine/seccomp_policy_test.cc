#include "engine/seccomp_policy.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/seccomp_gen/seccomp_compiler.h"

namespace paddock::engine {
namespace {

TEST(Seccomp, ProgramBuildsForBothModes) {
  auto a = seccomp_program({false});
  auto b = seccomp_program({true});
  EXPECT_GT(a.size(), 20u);
  // Denying inet sockets adds instructions: the option is not ignored.
  EXPECT_GT(b.size(), a.size());
}

// Golden: the programs compiled at build time are byte for byte what libseccomp makes of the
// rule list now, for both variants. A stale or hand-edited generated file fails here.
TEST(Seccomp, PrecompiledProgramsAreWhatLibseccompBuilds) {
  for (bool deny_inet : {false, true}) {
    auto want = build_seccomp_program({deny_inet});
    ASSERT_TRUE(want.ok()) << want.error().describe();
    std::span<const sock_filter> got = seccomp_program({deny_inet});
    ASSERT_EQ(got.size(), want->size()) << "deny_inet_sockets=" << deny_inet;
    EXPECT_EQ(std::memcmp(got.data(), want->data(), got.size_bytes()), 0) << "deny_inet_sockets=" << deny_inet;
  }
}

// The program starts by checking the architecture: anything but the native ABI is refused before
// any syscall number is looked at.
TEST(Seccomp, ProgramChecksTheNativeArchitectureFirst) {
#if defined(__x86_64__)
  constexpr std::uint32_t kNative = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr std::uint32_t kNative = AUDIT_ARCH_AARCH64;
#else
  GTEST_SKIP() << "no native audit arch constant known for this architecture in the test";
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  for (bool deny_inet : {false, true}) {
    auto prog = seccomp_program({deny_inet});
    ASSERT_GE(prog.size(), 3u);
    EXPECT_EQ(prog[0].code, BPF_LD | BPF_W | BPF_ABS);
    EXPECT_EQ(prog[0].k, offsetof(seccomp_data, arch));
    EXPECT_EQ(prog[1].code, BPF_JMP | BPF_JEQ | BPF_K);
    EXPECT_EQ(prog[1].k, kNative);
    // Not the native arch: the jump lands on "return ERRNO(ENOSYS)".
    const sock_filter& bad = prog[2 + prog[1].jf];
    EXPECT_EQ(bad.code, BPF_RET | BPF_K);
    EXPECT_EQ(bad.k, SECCOMP_RET_ERRNO | ENOSYS);
#if defined(__x86_64__)
    // x32 shares the x86_64 arch value: its syscall numbers (bit 30 set) are refused next.
    EXPECT_EQ(prog[3].code, BPF_JMP | BPF_JGE | BPF_K);
    EXPECT_EQ(prog[3].k, 0x40000000u);
#endif
  }
#endif
}

TEST(Seccomp, EveryEntrySaysWhy) {
  for (const auto& e : seccomp_denylist({true})) {
    EXPECT_FALSE(e.why.empty()) << e.syscall;
    EXPECT_TRUE(e.action == "EPERM" || e.action == "ENOSYS" || e.action == "EAFNOSUPPORT") << e.syscall;
  }
}

// Names are matched exactly: "mount" is not found in "umount2" or "move_mount".
TEST(Seccomp, NamesTheIssueClasses) {
  std::set<std::string> all;
  for (const auto& e : seccomp_denylist({false})) all.insert(e.syscall);
  for (const char* must : {"mount", "umount2", "io_uring_setup", "keyctl", "bpf", "perf_event_open", "userfaultfd",
                           "open_by_handle_at", "kexec_load", "init_module", "ioctl(TIOCSTI)", "ioctl(TIOCLINUX)",
                           "unshare(CLONE_NEWUSER)", "clone(CLONE_NEWUSER)", "clone3", "(any non-native syscall ABI)"})
    EXPECT_EQ(all.count(must), 1u) << must;
  std::set<std::string> inet;
  for (const auto& e : seccomp_denylist({true})) inet.insert(e.syscall);
  for (const char* must : {"socket(AF_INET)", "socket(AF_INET6)", "socket(AF_PACKET)"}) {
    EXPECT_EQ(inet.count(must), 1u) << must;
    EXPECT_EQ(all.count(must), 0u) << must << " only without a network namespace";
  }
}

// The first column of docs/seccomp.md's table, split at ", ": the entries it documents.
std::multiset<std::string> documented_entries(const std::string& doc) {
  std::multiset<std::string> out;
  std::istringstream lines(doc);
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind("| entry |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|---", 0) == 0) continue;
    if (line.empty() || line[0] != '|') break;  // the table ended
    std::size_t end = line.find('|', 1);
    std::string cell = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
    std::size_t pos = 0;
    for (;;) {
      std::size_t comma = cell.find(", ", pos);
      // A comma inside parentheses belongs to the entry ("open(O_CREAT, S_ISUID)").
      while (comma != std::string::npos && cell.rfind('(', comma) != std::string::npos &&
             (cell.rfind(')', comma) == std::string::npos || cell.rfind(')', comma) < cell.rfind('(', comma)))
        comma = cell.find(", ", comma + 2);
      std::string name = cell.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      while (!name.empty() && name.front() == ' ') name.erase(name.begin());
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!name.empty()) out.insert(name);
      if (comma == std::string::npos) break;
      pos = comma + 2;
    }
  }
  return out;
}

// Both directions: every entry of the list is in the table, and every entry of the table is
// in the list (an entry dropped from the code but left in the docs fails here).
TEST(Seccomp, DocumentedInDocs) {
  std::ifstream in(std::string(PADDOCK_SOURCE_DIR) + "/docs/seccomp.md");
  ASSERT_TRUE(in) << "docs/seccomp.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::multiset<std::string> doc = documented_entries(ss.str());
  ASSERT_GT(doc.size(), 20u) << "the table was not found in docs/seccomp.md";
  std::set<std::string> code;
  for (const auto& e : seccomp_denylist({true})) code.insert(e.syscall);
  for (const std::string& c : code) EXPECT_EQ(doc.count(c), 1u) << c << " is not in docs/seccomp.md (exactly once)";
  for (const std::string& d : doc) EXPECT_EQ(code.count(d), 1u) << d << " is in docs/seccomp.md but not in the list";
}

}  // namespace
}  // namespace paddock::engine
