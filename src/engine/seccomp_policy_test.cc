#include "engine/seccomp_policy.h"

#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <map>

#include "engine/seccomp_gen/seccomp_compiler.h"
#include "engine/seccomp_policy_rules.h"

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
  for (bool notify : {false, true}) {
    for (bool deny_inet : {false, true}) {
      auto want = build_seccomp_program({deny_inet, notify});
      ASSERT_TRUE(want.ok()) << want.error().describe();
      std::span<const sock_filter> got = seccomp_program({deny_inet, notify});
      ASSERT_EQ(got.size(), want->size()) << "deny_inet_sockets=" << deny_inet << " notify=" << notify;
      EXPECT_EQ(std::memcmp(got.data(), want->data(), got.size_bytes()), 0)
          << "deny_inet_sockets=" << deny_inet << " notify=" << notify;
    }
    // The supervisor's table: the numbers the rules resolved to when the programs were built.
    for (bool deny_inet : {false, true}) {
      std::vector<int> want = seccomp_rule_numbers_built({deny_inet});
      std::span<const int> got = seccomp_rule_numbers({deny_inet});
      EXPECT_EQ(std::vector<int>(got.begin(), got.end()), want);
    }
  }
}

// A classic-BPF interpreter for what libseccomp emits (loads of seccomp_data, the scratch memory,
// jumps, ALU, returns), to compare two programs by what they answer, not by their layout.
std::uint32_t run_bpf(std::span<const sock_filter> prog, const seccomp_data& d) {
  std::uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {};
  const auto* bytes = reinterpret_cast<const unsigned char*>(&d);
  for (std::size_t pc = 0; pc < prog.size(); ++pc) {
    const sock_filter& f = prog[pc];
    switch (BPF_CLASS(f.code)) {
      case BPF_LD:
        if (BPF_MODE(f.code) == BPF_ABS) std::memcpy(&a, bytes + f.k, 4);
        else if (BPF_MODE(f.code) == BPF_IMM) a = f.k;
        else if (BPF_MODE(f.code) == BPF_MEM) a = mem[f.k];
        else ADD_FAILURE() << "ld mode " << f.code;
        break;
      case BPF_LDX:
        if (BPF_MODE(f.code) == BPF_IMM) x = f.k;
        else if (BPF_MODE(f.code) == BPF_MEM) x = mem[f.k];
        else ADD_FAILURE() << "ldx mode " << f.code;
        break;
      case BPF_ST: mem[f.k] = a; break;
      case BPF_STX: mem[f.k] = x; break;
      case BPF_ALU: {
        std::uint32_t v = BPF_SRC(f.code) == BPF_X ? x : f.k;
        switch (BPF_OP(f.code)) {
          case BPF_AND: a &= v; break;
          case BPF_OR: a |= v; break;
          case BPF_ADD: a += v; break;
          case BPF_SUB: a -= v; break;
          case BPF_RSH: a >>= v; break;
          case BPF_LSH: a <<= v; break;
          default: ADD_FAILURE() << "alu op " << f.code;
        }
        break;
      }
      case BPF_MISC: if (BPF_MISCOP(f.code) == BPF_TAX) x = a; else a = x; break;
      case BPF_JMP: {
        if (BPF_OP(f.code) == BPF_JA) { pc += f.k; break; }
        std::uint32_t v = BPF_SRC(f.code) == BPF_X ? x : f.k;
        bool t = false;
        switch (BPF_OP(f.code)) {
          case BPF_JEQ: t = a == v; break;
          case BPF_JGT: t = a > v; break;
          case BPF_JGE: t = a >= v; break;
          case BPF_JSET: t = (a & v) != 0; break;
          default: ADD_FAILURE() << "jmp op " << f.code;
        }
        pc += t ? f.jt : f.jf;
        break;
      }
      case BPF_RET: return BPF_RVAL(f.code) == BPF_A ? a : f.k;
    }
  }
  ADD_FAILURE() << "fell off the program";
  return 0;
}

// The notify variant refuses exactly what the errno variant refuses: for every entry of the list
// (its arguments as the entry names them) and its control (arguments clear), "ERRNO(e)" in one is
// "USER_NOTIF" in the other and "ALLOW" stays "ALLOW"; a foreign architecture gets ERRNO(ENOSYS)
// from both (no supervisor is asked about a foreign ABI).
TEST(Seccomp, NotifyVariantRefusesWhatTheErrnoVariantRefuses) {
  for (bool deny_inet : {false, true}) {
    auto plain = seccomp_program({deny_inet, false});
    auto notify = seccomp_program({deny_inet, true});
    auto rules = seccomp_rules({deny_inet});
    auto numbers = seccomp_rule_numbers({deny_inet});
    ASSERT_EQ(rules.size(), numbers.size());
    std::size_t refused = 0;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (numbers[i] < 0) continue;
      seccomp_data d{};
      d.nr = numbers[i];
#if defined(__x86_64__)
      d.arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
      d.arch = AUDIT_ARCH_AARCH64;
#endif
      for (bool control : {false, true}) {
        std::memset(d.args, 0, sizeof d.args);
        if (!control) {
          if (rules[i].mask) d.args[rules[i].arg] |= rules[i].value;
          if (rules[i].mask2) d.args[rules[i].arg2] |= rules[i].value2;
        }
        std::uint32_t p = run_bpf(plain, d), n = run_bpf(notify, d);
        if ((p & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO) {
          ++refused;
          EXPECT_EQ(n, SECCOMP_RET_USER_NOTIF) << rules[i].name << " control=" << control;
          std::uint64_t args[6];
          for (int k = 0; k < 6; ++k) args[k] = d.args[k];
          EXPECT_NE(denylist_match({deny_inet, true}, d.nr, args), nullptr) << rules[i].name;
        } else {
          EXPECT_EQ(p, SECCOMP_RET_ALLOW) << rules[i].name;
          EXPECT_EQ(n, SECCOMP_RET_ALLOW) << rules[i].name << " control=" << control;
        }
      }
      d.arch = 0x40000003;  // AUDIT_ARCH_I386
      EXPECT_EQ(run_bpf(notify, d), SECCOMP_RET_ERRNO | ENOSYS);
      EXPECT_EQ(run_bpf(plain, d), SECCOMP_RET_ERRNO | ENOSYS);
    }
    EXPECT_GE(refused, rules.size() / 2);
  }
}

// The supervisor answers from the list, by the call's registers: a rule with an argument test
// matches only when the argument does, and each syscall's rules agree on the errno (so the first
// match is the answer whatever their order).
TEST(Seccomp, DenylistMatchFindsTheEntryByNumberAndArguments) {
  std::uint64_t none[6] = {0, 0, 0, 0, 0, 0};
  const SeccompRule* r = denylist_match({false, true}, SYS_mount, none);
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(r->name, "mount");
  EXPECT_EQ(r->err, EPERM);
  std::uint64_t newuser[6] = {CLONE_NEWUSER, 0, 0, 0, 0, 0};
  r = denylist_match({false, true}, SYS_unshare, newuser);
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(r->label, "unshare(CLONE_NEWUSER)");
  EXPECT_EQ(denylist_match({false, true}, SYS_unshare, none), nullptr);  // unshare(0) is allowed
  std::uint64_t tiocsti[6] = {0, 0xffffffff00000000ull | TIOCSTI, 0, 0, 0, 0};
  r = denylist_match({false, true}, SYS_ioctl, tiocsti);  // the high bits cannot fool it
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(r->label, "ioctl(TIOCSTI)");
  std::uint64_t inet[6] = {AF_INET, 0, 0, 0, 0, 0};
  EXPECT_EQ(denylist_match({false, true}, SYS_socket, inet), nullptr);
  r = denylist_match({true, true}, SYS_socket, inet);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->err, EAFNOSUPPORT);
  EXPECT_EQ(denylist_match({false, true}, SYS_getpid, none), nullptr);
  std::map<std::string, int> err_of;
  for (const SeccompRule& rule : seccomp_rules({true})) {
    auto [it, fresh] = err_of.emplace(rule.name, rule.err);
    EXPECT_EQ(it->second, rule.err) << rule.name;
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
