#include "agents/agent.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace paddock {
namespace {

// Every registered agent has all its parts: a name the command line can match, a name for
// messages, and a profile (that the profile loads is policy's test, AgentRegistry.EveryProfileLoads).
TEST(AgentRegistry, EveryAgentHasItsParts) {
  ASSERT_FALSE(agents().empty());
  std::set<std::string> seen;
  for (const AgentInfo& a : agents()) {
    ASSERT_NE(a.name, nullptr);
    std::string name = a.name;
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(name.find('/'), std::string::npos) << name;
    EXPECT_TRUE(seen.insert(name).second) << "registered twice: " << name;
    ASSERT_NE(a.display_name, nullptr) << name;
    EXPECT_FALSE(std::string(a.display_name).empty()) << name;
    ASSERT_NE(a.profile_toml, nullptr) << name;
    EXPECT_NE(std::string(a.profile_toml).find("extends = \"default\""), std::string::npos) << name;
  }
  EXPECT_FALSE(seen.contains("default"));  // a profile, not an agent
}

TEST(AgentRegistry, FoundByExactNameOnly) {
  for (const AgentInfo& a : agents()) EXPECT_EQ(find_agent(a.name), &a);
  EXPECT_NE(find_agent("claude"), nullptr);
  EXPECT_EQ(find_agent("claude-dev"), nullptr);
  EXPECT_EQ(find_agent("Claude"), nullptr);
  EXPECT_EQ(find_agent(""), nullptr);
}

}  // namespace
}  // namespace paddock
