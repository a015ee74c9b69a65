#include "policy/command_setup.h"

#include <gtest/gtest.h>

#include "paddock/profile.h"
#include "policy/builtin_profiles.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

using Args = std::vector<std::string>;

PolicyBuilder::CommandSetup setup() {
  PolicyBuilder::CommandSetup s;
  s.name = "codex";
  s.args = {"-c", "sandbox_mode=\"danger-full-access\""};
  s.conflicts = {"-s workspace-write", "--sandbox workspace-write", "--own"};
  return s;
}

TEST(CommandSetup, ArgumentsGoRightAfterTheAgentsNameSoTheUsersOwnWin) {
  auto a = adjust_command({"/usr/lib/node_modules/.bin/codex", "exec", "hi"}, setup());
  EXPECT_TRUE(a.applied);
  EXPECT_EQ(a.argv, (Args{"/usr/lib/node_modules/.bin/codex", "-c", "sandbox_mode=\"danger-full-access\"", "exec", "hi"}));
  EXPECT_TRUE(a.conflicts.empty());
}

TEST(CommandSetup, OtherCommandsAreLeftAlone) {
  for (const Args& argv : {Args{"sh", "-c", "codex"}, Args{"codex-wrapper"}, Args{"/opt/codex/bin/node", "codex"}, Args{}}) {
    auto a = adjust_command(argv, setup());
    EXPECT_FALSE(a.applied);
    EXPECT_EQ(a.argv, argv);
  }
}

TEST(CommandSetup, ConflictsAreFoundInEverySpelling) {
  auto a = adjust_command({"codex", "-s", "workspace-write", "exec", "--sandbox=workspace-write", "-sworkspace-write",
                           "--own=1", "--", "--own"},
                          setup());
  EXPECT_EQ(a.conflicts, (Args{"-s workspace-write", "--sandbox=workspace-write", "-sworkspace-write", "--own=1"}));
  // Other values of the flag are no conflict; nor is a word that only starts like it.
  EXPECT_TRUE(adjust_command({"codex", "-s", "danger-full-access", "--owner"}, setup()).conflicts.empty());
}

TEST(CommandSetup, TheCodexProfileTellsCodexPaddockIsItsSandbox) {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/usr/bin").dir("/etc").dir("/home/u/proj");
  HostContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.uid = ctx.gid = 1000;
  ctx.fs = fs;
  PolicyBuilder b(ctx);
  const BuiltinProfile* codex = find_builtin_profile("codex");
  ASSERT_NE(codex, nullptr);
  ASSERT_TRUE(apply_profile({"codex", "<built-in:codex>", codex->toml}, b, ctx).ok());
  ASSERT_TRUE(b.command_setup().has_value());
  auto a = adjust_command({"codex", "exec", "-s", "read-only", "hi"}, *b.command_setup());
  ASSERT_TRUE(a.applied);
  ASSERT_GE(a.argv.size(), 3u);
  EXPECT_EQ(a.argv[1], "-c");
  EXPECT_EQ(a.argv[2], "sandbox_mode=\"danger-full-access\"");
  EXPECT_EQ(a.conflicts, (Args{"-s read-only"}));
  EXPECT_NE(b.command_setup()->conflict_message.find("bwrap"), std::string::npos);
}

}  // namespace
}  // namespace paddock
