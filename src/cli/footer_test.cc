#include "cli/footer.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace paddock::cli {
namespace {

Policy filtered_policy() {
  Policy p;
  p.home = "/home/u";
  p.network.mode = NetMode::Filtered;
  return p;
}

bool has(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

// Issue 30, item 8: a command that was not found gets two lines that name it and the PATH,
// not the policy.
TEST(Footer, CommandNotFoundIsShortAndNamesThePath) {
  RunResult r;
  r.status = RunResult::Status::NotFound;
  r.setup_detail = "foo";
  r.setup_errno = ENOENT;
  r.search_path = "/usr/local/bin:/usr/bin:/bin";
  auto l = footer_lines(r, filtered_policy(), {});
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0], "`foo` was not found in the sandbox's PATH (exit code 127): /usr/local/bin:/usr/bin:/bin");
  EXPECT_FALSE(has(l, "Sandbox policy"));

  r.setup_detail = "./build/foo";
  l = footer_lines(r, filtered_policy(), {});
  ASSERT_EQ(l.size(), 2u);
  EXPECT_TRUE(has(l, "`./build/foo` does not exist in the sandbox (exit code 127)"));
}

// Issue 30, item 6: `git config user.name x` fails with "Device or resource busy" on the held
// .git/config; the footer names the held files and what those errors mean there.
TEST(Footer, HeldFilesAndWhatTheirErrorsMeanAreNamed) {
  Policy p = filtered_policy();
  p.cwd = "/home/u/proj";
  p.protected_paths = {{"/home/u/proj/.git/config", "git config", true},
                       {"/home/u/proj/.envrc", "direnv", false},
                       {"/home/u/.bashrc", "shell rc", true}};
  RunResult r;
  r.exit_code = 255;
  auto l = footer_lines(r, p, {});
  EXPECT_TRUE(has(l, "Held read-only (the host runs them later): .git/config, ~/.bashrc")) << ::testing::PrintToString(l);
  EXPECT_TRUE(has(l, "\"Device or resource busy\"")) << ::testing::PrintToString(l);
  EXPECT_FALSE(has(l, ".envrc")) << "an absent one is watched, not held";
  p.protected_paths.clear();
  EXPECT_FALSE(has(footer_lines(r, p, {}), "Held read-only"));
}

TEST(Footer, NotExecutableIsShortAndSaysHowToAsk) {
  RunResult r;
  r.status = RunResult::Status::NotExecutable;
  r.setup_detail = "/work/p/run.sh";
  r.setup_errno = EACCES;
  auto l = footer_lines(r, filtered_policy(), {});
  ASSERT_EQ(l.size(), 2u);
  EXPECT_TRUE(has(l, "`/work/p/run.sh` could not be executed in the sandbox: Permission denied (exit code 126)"));
  EXPECT_TRUE(has(l, "paddock why --path /work/p/run.sh --op exec"));
}

// With something else to say (a limit, a blocked host), the whole footer stays.
TEST(Footer, ExecFailureWithOtherNewsKeepsTheWholeFooter) {
  RunResult r;
  r.status = RunResult::Status::NotFound;
  r.setup_detail = "foo";
  auto l = footer_lines(r, filtered_policy(), {"network: blocked evil.example:443 (connect)"});
  EXPECT_TRUE(has(l, "Sandbox policy"));
  EXPECT_TRUE(has(l, "network: blocked evil.example:443"));
}

TEST(Footer, GrantsNameAllowDomainAndShellCodesAreExplained) {
  RunResult r;
  r.status = RunResult::Status::Exited;
  r.exit_code = 127;
  r.search_path = "/usr/bin:/bin";
  auto l = footer_lines(r, filtered_policy(), {});
  EXPECT_TRUE(has(l, "Command exited with code 127 (a shell's \"command not found\"; the sandbox's PATH: /usr/bin:/bin)"));
  EXPECT_TRUE(has(l, "--allow-domain <host>"));
  EXPECT_TRUE(has(l, "--allow-net"));
  Policy open = filtered_policy();
  open.network.mode = NetMode::Host;
  l = footer_lines(r, open, {});
  EXPECT_FALSE(has(l, "--allow-domain"));
  r.exit_code = 1;
  EXPECT_TRUE(has(footer_lines(r, filtered_policy(), {}), "Command exited with code 1. This may be"));
}

}  // namespace
}  // namespace paddock::cli

namespace paddock::cli {
namespace {

Denial seccomp_refusal(const std::string& what, std::uint64_t count) {
  Denial d;
  d.layer = Denial::Layer::Seccomp;
  d.what = what;
  d.op = "syscall";
  d.rule = "denylist (EPERM): changing mounts";
  d.count = count;
  d.pid = 4;
  d.comm = "sh";
  return d;
}

// Issue 28: exact lines when paddock recorded refusals; "may be due to" only when it recorded none.
TEST(Footer, RecordedRefusalsReplaceTheGuess) {
  RunResult r;
  r.status = RunResult::Status::Exited;
  r.exit_code = 1;
  auto guess = footer_lines(r, filtered_policy(), {});
  EXPECT_TRUE(has(guess, "This may be due to sandbox restrictions."));
  r.denials.push_back(seccomp_refusal("mount", 3));
  auto l = footer_lines(r, filtered_policy(), {});
  EXPECT_FALSE(has(l, "may be due to"));
  EXPECT_EQ(l[0], "Command exited with code 1. During the run the sandbox refused:");
  EXPECT_EQ(l[1], "  refused syscall mount [seccomp: denylist (EPERM): changing mounts] x3, first by pid 4 (sh); "
                  "no flag allows it");
  Denial hidden;
  hidden.layer = Denial::Layer::MountHidden;
  hidden.what = "/srv/data";
  hidden.op = "read";
  hidden.rule = "outside every rule (not in the sandbox)";
  hidden.allow_with = "--read /srv/data";
  hidden.count = 1;
  r.denials.push_back(hidden);
  l = footer_lines(r, filtered_policy(), {});
  EXPECT_TRUE(has(l, "refused read /srv/data [mount-hidden: outside every rule (not in the sandbox)]; allow with --read /srv/data"));
}

// The egress filter's refusals keep their `network: blocked` lines (from extra), once.
TEST(Footer, EgressRefusalsAreNotRepeated) {
  Denial net;
  net.layer = Denial::Layer::Egress;
  net.what = "evil.example:443";
  net.op = "connect";
  net.count = 1;
  EXPECT_TRUE(denial_lines({net}).empty());
  std::vector<Denial> many;
  for (int i = 0; i < 13; ++i) many.push_back(seccomp_refusal("call" + std::to_string(i), 1));
  auto l = denial_lines(many);
  ASSERT_EQ(l.size(), 11u);
  EXPECT_EQ(l.back(), "  3 more refusals; --report FILE or --denials FILE lists them");
}

}  // namespace
}  // namespace paddock::cli
