#include "agents/agent.h"

#include <algorithm>
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

// What an agent declares the host runs later is well-formed: relative paths (to HOME or to a
// project) with no "..", each with the reason the host runs it; an integration names where it
// writes. The lists' use is tested where they are used (unit_policy's protected paths, unit_gate's
// agent config checks, unit_integrate).
bool clean_relative(const std::string& p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  for (std::size_t i = 0; i <= p.size();) {
    const std::size_t j = std::min(p.find('/', i), p.size());
    const std::string c = p.substr(i, j - i);
    if (c.empty() || c == "." || c == "..") return false;
    i = j + 1;
  }
  return true;
}

TEST(AgentRegistry, WhatTheHostRunsLaterIsWellFormed) {
  for (const AgentInfo& a : agents()) {
    for (const ProtectedEntry& e : a.project_files) {
      EXPECT_TRUE(clean_relative(e.path)) << a.name << ": " << e.path;
      ASSERT_NE(e.reason, nullptr) << a.name << ": " << e.path;
      EXPECT_FALSE(std::string(e.reason).empty()) << a.name << ": " << e.path;
    }
    for (const KnownConfig& k : a.home_config) {
      EXPECT_TRUE(clean_relative(k.rel)) << a.name << ": " << k.rel;
      EXPECT_FALSE(k.why.empty()) << a.name << ": " << k.rel;
      for (const ConfigKey& key : k.keys) EXPECT_FALSE(key.path.empty()) << a.name << ": " << k.rel;
    }
    if (a.integration) {
      ASSERT_NE(a.integration->summary, nullptr) << a.name;
      ASSERT_NE(a.integration->dir, nullptr) << a.name;
      ASSERT_NE(a.integration->instructions_file, nullptr) << a.name;
      EXPECT_TRUE(clean_relative(a.integration->dir)) << a.name;
      EXPECT_EQ(std::string(a.integration->instructions_file).find('/'), std::string::npos) << a.name;
    }
  }
}

// The agents whose later runs on the host trust files paddock must keep declare them: Claude
// Code, codex and pi run hooks, MCP servers and extensions from HOME and from a project.
TEST(AgentRegistry, TheAgentsThatRunConfigDeclareIt) {
  for (const char* name : {"claude", "codex", "pi", "gemini"}) {
    const AgentInfo* a = find_agent(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_FALSE(a->home_config.empty()) << name;
    EXPECT_FALSE(a->project_files.empty()) << name;
  }
}

}  // namespace
}  // namespace paddock
