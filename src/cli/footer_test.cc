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
