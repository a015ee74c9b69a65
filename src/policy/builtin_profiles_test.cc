#include "policy/builtin_profiles.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>

#include "agents/agent.h"
#include "policy/fake_fs.h"
#include "paddock/profile.h"

namespace paddock {
namespace {

// A host with nothing in HOME (/home/u) and the project at /home/u/proj.
HostContext empty_home() {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/usr/bin").dir("/etc").dir("/home/u/proj");
  HostContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.fs = fs;
  return ctx;
}

// Every agent registered in src/agents/ is reached as a built-in profile that loads, and is the
// profile `paddock run -- NAME` picks: adding an agent is its registration alone.
TEST(AgentRegistry, EveryProfileLoads) {
  for (const AgentInfo& a : agents()) {
    const BuiltinProfile* bp = find_builtin_profile(a.name);
    ASSERT_NE(bp, nullptr) << a.name;
    EXPECT_EQ(bp->toml, a.profile_toml) << a.name;
    EXPECT_EQ(agent_profile_for(std::string("/usr/bin/") + a.name), a.name);
    HostContext ctx = empty_home();
    PolicyBuilder b(ctx);
    auto src = find_profile(a.name, ctx);
    ASSERT_TRUE(src.ok()) << a.name;
    auto applied = apply_profile(*src, b, ctx);
    ASSERT_TRUE(applied.ok()) << a.name << ": " << applied.error().describe();
    auto p = b.build();
    ASSERT_TRUE(p.ok()) << a.name << ": " << p.error().describe();
  }
}

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

#include <algorithm>
#include <memory>

#include "paddock/profile.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

struct Grant {
  const char* path;
  Access access;
};

// Each agent profile, with every path it names present: each path is granted as its line says,
// the network is filtered, and nothing else in HOME becomes visible.
TEST(AgentProfile, EveryPathResolvesWithItsAccess) {
  const std::vector<std::pair<const char*, std::vector<Grant>>> table = {
      // Inverted (issue 25, class 7): the agent's directory read-only, only what it writes itself
      // read-write; what runs on the host later and lies in a directory that must stay writable is
      // read-only inside it.
      {"claude", {{"/home/u/.claude", Access::Read}, {"/home/u/.claude.json", Access::ReadWrite},
                  {"/home/u/.claude/projects", Access::ReadWrite}, {"/home/u/.claude/shell-snapshots", Access::ReadWrite},
                  {"/home/u/.claude/history.jsonl", Access::ReadWrite},
                  {"/home/u/.claude/.credentials.json", Access::ReadWrite}}},
      {"codex", {{"/home/u/.codex", Access::ReadWrite}, {"/home/u/.codex/rules", Access::Read},
                 {"/home/u/.codex/skills", Access::Read}, {"/home/u/.codex/.env", Access::Read}}},
      {"pi", {{"/home/u/.pi/agent", Access::ReadWrite}, {"/home/u/.pi/agent/extensions", Access::Read},
              {"/home/u/.pi/agent/git", Access::Read}, {"/home/u/.pi/agent/skills", Access::Read},
              {"/home/u/.pi/agent/models.json", Access::Read}, {"/home/u/.pi/agent/bin", Access::Read}}},
      {"aider", {{"/home/u/.aider", Access::ReadWrite}, {"/home/u/.aider.conf.yml", Access::Read}}},
      {"gemini", {{"/home/u/.gemini", Access::Read}, {"/home/u/.gemini/tmp", Access::ReadWrite},
                  {"/home/u/.gemini/oauth_creds.json", Access::ReadWrite}}},
      {"opencode", {{"/home/u/.local/share/opencode", Access::ReadWrite}, {"/home/u/.config/opencode", Access::Read},
                    {"/home/u/.cache/opencode", Access::Read}, {"/home/u/.local/share/opencode/bin", Access::Read}}},
      {"goose", {{"/home/u/.local/share/goose", Access::ReadWrite}, {"/home/u/.local/state/goose", Access::ReadWrite},
                 {"/home/u/.config/goose", Access::Read}}},
  };
  for (const auto& [name, grants] : table) {
    auto fs = std::make_shared<FakeFs>();
    fs->dir("/usr/bin").dir("/etc").dir("/home/u/proj").dir("/home/u/.ssh");
    for (const auto& g : grants) {
      std::string p = g.path;
      if (p.find(".json") != std::string::npos || p.find(".yml") != std::string::npos || p.find(".env") != std::string::npos)
        fs->file(p);
      else fs->dir(p);
    }
    HostContext ctx;
    ctx.cwd = "/home/u/proj";
    ctx.home = "/home/u";
    ctx.user = "u";
    ctx.fs = fs;
    PolicyBuilder b(ctx);
    auto src = find_profile(name, ctx);
    ASSERT_TRUE(src.ok()) << name;
    ASSERT_TRUE(apply_profile(*src, b, ctx).ok()) << name;
    auto p = b.build();
    ASSERT_TRUE(p.ok()) << name << ": " << p.error().describe();
    EXPECT_EQ(p->network.mode, NetMode::Filtered) << name;
    EXPECT_FALSE(p->network.allow_domains.empty()) << name;
    for (const auto& g : grants) {
      const PathRule* r = p->find_rule(g.path);
      ASSERT_NE(r, nullptr) << name << ": " << g.path;
      EXPECT_EQ(r->access, g.access) << name << ": " << g.path;
    }
    EXPECT_EQ(p->find_rule("/home/u/.ssh"), nullptr) << name;
    EXPECT_EQ(agent_profile_for(name), name);
  }
}

// The claude profile creates ~/.claude and what Claude Code writes in it before the first run:
// a mount needs something to bind, so each is read+write inside a read-only ~/.claude from the
// first run on. ~/.claude/plugins too, so that it is read-only from then on (Claude Code writes
// usage counters to plugins/store/ at every start and runs fine without; found by tests/agents).
TEST(AgentProfile, ClaudeCreatesWhatItWritesSoThatItCanBeGranted) {
  HostContext ctx = empty_home();
  PolicyBuilder b(ctx);
  auto src = find_profile("claude", ctx);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE(apply_profile(*src, b, ctx).ok());
  std::vector<std::string> created;
  for (const auto& d : b.dirs_to_create()) created.push_back(d.path);
  for (const char* d : {"/home/u/.claude", "/home/u/.claude/plugins", "/home/u/.claude/projects",
                        "/home/u/.claude/shell-snapshots", "/home/u/.claude/file-history", "/home/u/.claude/todos"})
    EXPECT_NE(std::find(created.begin(), created.end(), d), created.end()) << d;
  std::vector<std::string> files;
  for (const auto& f : b.files_to_create()) files.push_back(f.path);
  EXPECT_EQ(files, (std::vector<std::string>{"/home/u/.claude.json", "/home/u/.claude/.credentials.json",
                                             "/home/u/.claude/history.jsonl"}));
}

}  // namespace
}  // namespace paddock
