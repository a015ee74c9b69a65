// Escape suite, the seccomp denylist entry by entry (issue 19, A). `paddock-probe seccomp-check`
// makes each call under a filter of its own that answers "success" without running it, so a
// call fails only when paddock's filter refuses it, and then with paddock's exact errno (see
// tests/helpers/probe_seccomp.cc). Kernel errors for bad arguments, missing capabilities or
// disabled features cannot pass for a refusal. The tests walk the rule list itself (a new entry
// is tested by construction) plus a fixed set that must be refused whatever the list says (an
// entry dropped from the list is caught).
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/seccomp_policy_rules.h"
#include "helpers/test_util.h"

namespace ktest {
namespace {

using paddock::engine::SeccompOptions;
using paddock::engine::SeccompRule;

struct Expect {
  std::string what;   // for messages: "mount", "ioctl(TIOCSTI)", "control: ioctl"
  long nr = -1;
  std::uint64_t args[6] = {0, 0, 0, 0, 0, 0};
  std::string want;   // "ALLOWED" or "DENIED EPERM" ...
};

long resolve(const char* name, int fallback = -1) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR || nr < 0) return fallback;  // < 0: not a syscall on this architecture
  return nr;
}

std::string denied_with(int err) { return std::string("DENIED ") + strerrorname_np(err); }

// One expectation per rule of the list, and for rules that look at an argument, a control: the
// same syscall with that argument clear must be allowed (the rule is no broader than it says).
std::vector<Expect> from_rule_list(const SeccompOptions& opts) {
  std::vector<Expect> out;
  std::set<long> controlled;
  for (const SeccompRule& r : paddock::engine::seccomp_rules(opts)) {
    long nr = resolve(r.name, r.nr_fallback);
    if (nr < 0) continue;  // absent on this architecture: the compiler skips it too
    Expect e;
    e.what = r.label ? r.label : r.name;
    e.nr = nr;
    if (r.mask) e.args[r.arg] = r.value;
    if (r.mask2) e.args[r.arg2] |= r.value2;
    e.want = denied_with(r.err);
    out.push_back(e);
    if ((r.mask || r.mask2) && controlled.insert(nr).second) {
      Expect c;
      c.what = std::string("control: ") + r.name + " without the refused argument";
      c.nr = nr;
      c.want = "ALLOWED";
      out.push_back(c);
    }
  }
  return out;
}

// What must be refused whatever the rule list says (the list and its neighbours).
std::vector<Expect> must_deny(bool network_off_by_seccomp) {
  const std::pair<const char*, int> plain[] = {
      {"mount", EPERM},          {"umount2", EPERM},         {"pivot_root", EPERM},     {"move_mount", EPERM},
      {"open_tree", EPERM},      {"fsopen", EPERM},          {"fsmount", EPERM},        {"setns", EPERM},
      {"bpf", EPERM},            {"perf_event_open", EPERM}, {"userfaultfd", EPERM},    {"io_uring_setup", ENOSYS},
      {"io_uring_enter", ENOSYS}, {"io_uring_register", ENOSYS}, {"open_by_handle_at", EPERM},
      {"name_to_handle_at", EPERM}, {"kexec_load", EPERM},   {"kexec_file_load", EPERM}, {"init_module", EPERM},
      {"finit_module", EPERM},   {"delete_module", EPERM},   {"keyctl", EPERM},         {"add_key", EPERM},
      {"request_key", EPERM},    {"clone3", ENOSYS},         {"openat2", ENOSYS},
  };
  std::vector<Expect> out;
  for (const auto& [name, err] : plain) {
    long nr = resolve(name);
    if (nr < 0) continue;
    Expect e;
    e.what = std::string("must-deny: ") + name;
    e.nr = nr;
    e.want = denied_with(err);
    out.push_back(e);
  }
  auto with_arg = [&](const char* name, int arg, std::uint64_t v, int err, const char* what) {
    long nr = resolve(name);
    if (nr < 0) return;
    Expect e;
    e.what = std::string("must-deny: ") + what;
    e.nr = nr;
    e.args[arg] = v;
    e.want = denied_with(err);
    out.push_back(e);
  };
  with_arg("unshare", 0, CLONE_NEWUSER, EPERM, "unshare(CLONE_NEWUSER)");
  with_arg("clone", 0, CLONE_NEWUSER | SIGCHLD, EPERM, "clone(CLONE_NEWUSER)");
  with_arg("ioctl", 1, TIOCSTI, EPERM, "ioctl(TIOCSTI)");
  with_arg("chmod", 1, 04755, EPERM, "chmod(S_ISUID)");
  if (network_off_by_seccomp) {
    with_arg("socket", 0, AF_INET, EAFNOSUPPORT, "socket(AF_INET)");
    with_arg("socket", 0, AF_INET6, EAFNOSUPPORT, "socket(AF_INET6)");
  }
  return out;
}

std::string spec(std::size_t i, const Expect& e) {
  std::ostringstream s;
  s << "c" << i << ":" << e.nr << ":";
  for (int a = 0; a < 6; ++a) s << (a ? "," : "") << e.args[a];
  return s.str();
}

// "c17" -> "DENIED EPERM" from the probe's output.
std::map<std::string, std::string> parse_results(const std::string& out) {
  std::map<std::string, std::string> r;
  for (const std::string& line : split_lines(out)) {
    auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    r[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return r;
}

// Runs the checks with `run` (which gets the probe's arguments) and compares. `refused`: what the
// run's report says paddock's supervisor refused, by entry name, when the denylist is answered by
// it (the probe then says NOT-RUN for a call nobody refused and for a call refused with ENOSYS:
// the record tells them apart, so it is checked for exactly those).
template <typename Run>
void check_all(const std::vector<Expect>& checks, Run run, const std::string& mode,
               std::map<std::string, int>* refused = nullptr) {
  std::vector<std::string> args{"seccomp-check"};
  for (std::size_t i = 0; i < checks.size(); ++i) args.push_back(spec(i, checks[i]));
  Proc p = run(args);
  ASSERT_EQ(p.code, 0) << mode << "\n" << describe(p);
  auto got = parse_results(p.out);
  int wrong = 0;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    auto it = got.find("c" + std::to_string(i));
    std::string g = it == got.end() ? "(no answer)" : it->second;
    std::string want = checks[i].want;
    if (g == "NOT-RUN" && refused) {
      // Not run by the kernel: refused with ENOSYS by paddock's supervisor when its record names
      // the entry, otherwise nobody refused it. (A control shares its entry's name, but every
      // entry with a control refuses with EPERM, which the probe sees directly.)
      // Each such call uses up one of the record's count for its entry ("must-deny: X" is X).
      std::string name = checks[i].what;
      if (name.rfind("must-deny: ", 0) == 0) name = name.substr(11);
      auto it = refused->find(name);
      const bool recorded = it != refused->end() && it->second > 0;
      if (recorded && want == "DENIED ENOSYS") --it->second;
      g = recorded && want == "DENIED ENOSYS" ? "DENIED ENOSYS" : "ALLOWED";
    }
    if (g != want) ++wrong;
    EXPECT_EQ(g, want) << mode << ": " << checks[i].what << " (nr " << checks[i].nr << ")";
  }
  EXPECT_EQ(wrong, 0) << mode << "\n" << describe(p);
}

// The entries the run's report lists as refused by the seccomp denylist, with their counts.
std::map<std::string, int> refused_in_report(const std::string& report) {
  std::map<std::string, int> out;
  auto j = nlohmann::json::parse(read_file(report), nullptr, false);
  if (j.is_discarded() || !j.contains("denials")) return out;
  for (const auto& d : j["denials"])
    if (d.value("layer", "") == "seccomp" && d.value("count", 0) > 0) out[d.value("what", "")] = d.value("count", 0);
  return out;
}

bool runner_under_seccomp() {
  for (const std::string& l : split_lines(read_file("/proc/self/status")))
    if (l.rfind("Seccomp:", 0) == 0) return l.find('0') == std::string::npos;
  return false;
}

// The mechanism can say "allowed": outside any sandbox, every entry of both lists is.
TEST(Escape, SeccompCheckAnswersAllowedOutsideTheSandbox) {
  KTEST_REQUIRE_BINARIES();
  if (runner_under_seccomp()) GTEST_SKIP() << "the test runner itself runs under a seccomp filter";
  std::vector<Expect> checks = from_rule_list({true});
  for (Expect& e : must_deny(true)) checks.push_back(e);
  for (Expect& e : checks) e.want = "ALLOWED";
  check_all(checks, [](const std::vector<std::string>& a) {
    std::vector<std::string> argv{probe_bin()};
    argv.insert(argv.end(), a.begin(), a.end());
    return run(argv);
  }, "outside any sandbox");
}

TEST(Escape, SeccompDenylistEveryEntry) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "user namespaces unavailable (the Fallback variant covers this host)";
  World w;
  std::vector<Expect> checks = from_rule_list({false});
  for (Expect& e : must_deny(false)) checks.push_back(e);
  // Without --exec paddock's supervisor answers the denylist (and counts it): the probe's TRACE
  // technique, with the report telling ENOSYS refusals from calls nobody refused.
  const std::string report = w.root / "report.json";
  std::map<std::string, int> refused;
  check_all(checks, [&](const std::vector<std::string>& a) {
    Proc p = w.probe_run({"--report", report}, a);
    refused = refused_in_report(report);
    return p;
  }, "namespaces", &refused);
  EXPECT_TRUE(refused.count("mount")) << read_file(report);
  check_all(checks, [&](const std::vector<std::string>& a) { return w.probe_run({"--exec"}, a); }, "namespaces, --exec");
}

// Without namespaces, with the network off: the socket rules join the list. Under --exec, since
// the run's own user-notification listener (if any) would leave the probe none of its own.
TEST(Escape, SeccompDenylistEveryEntryFallback) {
  KTEST_REQUIRE_BINARIES();
  if (landlock_abi() < 1) GTEST_SKIP() << "no Landlock: no fallback on this host";
  World w;
  auto o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  std::vector<Expect> checks = from_rule_list({true});
  for (Expect& e : must_deny(true)) checks.push_back(e);
  check_all(checks, [&](const std::vector<std::string>& a) {
    std::vector<std::string> args{"run", "--exec", "--", w.probe};
    args.insert(args.end(), a.begin(), a.end());
    return w.paddock(args, o);
  }, "fallback, --exec");
}

}  // namespace
}  // namespace ktest
