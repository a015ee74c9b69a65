#include "policy/builtin_profiles.h"

#include <gtest/gtest.h>

namespace paddock {
namespace {

TEST(AgentProfile, PickedByTheCommandsExactName) {
  EXPECT_EQ(agent_profile_for("claude"), "claude");
  EXPECT_EQ(agent_profile_for("/usr/local/bin/codex"), "codex");
  EXPECT_EQ(agent_profile_for("./node_modules/.bin/pi"), "pi");
  EXPECT_EQ(agent_profile_for("claude-dev"), "");
  EXPECT_EQ(agent_profile_for("mypi"), "");
  EXPECT_EQ(agent_profile_for("default"), "");  // a profile, not an agent
  EXPECT_EQ(agent_profile_for("/bin/sh"), "");
  EXPECT_EQ(agent_profile_for(""), "");
}

TEST(AgentProfile, ClaudeReachesItsLoginPlatform) {
  const BuiltinProfile* c = find_builtin_profile("claude");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(std::string(c->toml).find("\"platform.claude.com\""), std::string::npos);
}

}  // namespace
}  // namespace paddock
