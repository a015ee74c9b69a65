#include "gate/agent_config.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "paddock/profile.h"
#include "policy/builtin_profiles.h"
#include "policy/fake_fs.h"

namespace paddock::gate {
namespace {

using nlohmann::json;

const KnownConfig& known(const std::string& rel) {
  for (const KnownConfig& k : known_agent_configs())
    if (k.rel == rel) return k;
  throw std::runtime_error("no known config " + rel);
}

TEST(RestoreJsonKeys, PutsBackOnlyTheWatchedKeys) {
  const std::string old_text = R"({"numStartups": 3, "projects": {"/p": {"allowedTools": [], "history": [1]}}})";
  const std::string new_text = R"({"numStartups": 4, "mcpServers": {"x": {"command": "sh"}},
      "projects": {"/p": {"allowedTools": ["Bash"], "history": [1, 2], "hasTrustDialogAccepted": true},
                   "/q": {"mcpServers": {"y": {}}}}})";
  JsonRestore r = restore_json_keys(old_text, new_text, known(".claude.json").keys);
  ASSERT_TRUE(r.parsed);
  EXPECT_EQ(r.changed, (std::vector<std::string>{"mcpServers", "projects./q.mcpServers", "projects./p.allowedTools",
                                                  "projects./p.hasTrustDialogAccepted"}));
  json m = json::parse(r.merged);
  EXPECT_EQ(m["numStartups"], 4);                      // the agent's state kept
  EXPECT_EQ(m["projects"]["/p"]["history"].size(), 2u);
  EXPECT_FALSE(m.contains("mcpServers"));
  EXPECT_TRUE(m["projects"]["/p"]["allowedTools"].empty());
  EXPECT_FALSE(m["projects"]["/p"].contains("hasTrustDialogAccepted"));
  EXPECT_FALSE(m["projects"]["/q"].contains("mcpServers"));
}

TEST(RestoreJsonKeys, RemovalOfADisabledServerIsPutBack) {
  JsonRestore r = restore_json_keys(R"({"projects": {"/p": {"disabledMcpjsonServers": ["evil"]}}})",
                                    R"({"projects": {"/p": {}}})", known(".claude.json").keys);
  ASSERT_TRUE(r.parsed);
  EXPECT_EQ(r.changed, std::vector<std::string>{"projects./p.disabledMcpjsonServers"});
  EXPECT_EQ(json::parse(r.merged)["projects"]["/p"]["disabledMcpjsonServers"], json::array({"evil"}));
}

TEST(RestoreJsonKeys, AParentMadeSomethingElseIsPutBackWhole) {
  JsonRestore r = restore_json_keys(R"({"projects": {"/p": {"x": 1}}})", R"({"projects": "gone"})",
                                    known(".claude.json").keys);
  ASSERT_TRUE(r.parsed);
  EXPECT_EQ(json::parse(r.merged)["projects"], json::parse(R"({"/p": {"x": 1}})"));
}

TEST(RestoreJsonKeys, CommandsOnlyCountWhenAValueIsACommand) {
  const auto& keys = known(".pi/agent/auth.json").keys;
  JsonRestore plain = restore_json_keys(R"({"openai": {"type": "api_key", "key": "sk-1"}})",
                                        R"({"openai": {"type": "api_key", "key": "sk-2"}})", keys);
  ASSERT_TRUE(plain.parsed);
  EXPECT_TRUE(plain.changed.empty());  // a new key typed in at /login is kept
  JsonRestore cmd = restore_json_keys(R"({"openai": {"type": "api_key", "key": "sk-1"}})",
                                      R"({"openai": {"type": "api_key", "key": "!touch /tmp/x"}})", keys);
  EXPECT_EQ(cmd.changed, std::vector<std::string>{"openai.key"});
  EXPECT_EQ(json::parse(cmd.merged)["openai"]["key"], "sk-1");
}

TEST(RestoreJsonKeys, NotAnObjectIsNotParsed) {
  EXPECT_FALSE(restore_json_keys("{}", "{", known(".claude.json").keys).parsed);
  EXPECT_FALSE(restore_json_keys("{}", "[1]", known(".claude.json").keys).parsed);
}

TEST(DiffTomlKeys, WatchedKeysOnly) {
  const auto& keys = known(".codex/config.toml").keys;
  TomlDiff same = diff_toml_keys("model = \"a\"\n[projects.\"/p\"]\ntrust_level = \"untrusted\"\n",
                                 "model = \"b\"\n# a comment\n[projects.\"/p\"]\ntrust_level = \"untrusted\"\n", keys);
  ASSERT_TRUE(same.parsed);
  EXPECT_TRUE(same.changed.empty());
  TomlDiff d = diff_toml_keys("model = \"a\"\n", "notify = [\"sh\", \"-c\", \"x\"]\n[mcp_servers.e]\ncommand = \"sh\"\n", keys);
  EXPECT_EQ(d.changed, (std::vector<std::string>{"notify", "mcp_servers"}));
  EXPECT_FALSE(diff_toml_keys("", "notify = [", keys).parsed);
}

// The whole watch on a temporary HOME: a writable rule over it.
class AgentConfigWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-agentcfg-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    home_ = tmpl;
    rules_.push_back(PathRule{home_ + "/.claude", home_ + "/.claude", Access::ReadWrite, {Origin::Kind::Profile, ""}, false, {}});
    rules_.push_back(PathRule{home_ + "/.claude.json", "", Access::ReadWrite, {Origin::Kind::Profile, ""}, false, {}});
    rules_.push_back(PathRule{home_ + "/.codex", "", Access::ReadWrite, {Origin::Kind::Profile, ""}, false, {}});
    rules_.push_back(PathRule{home_ + "/.pi", "", Access::ReadWrite, {Origin::Kind::Profile, ""}, false, {}});
    mkdir((home_ + "/.claude").c_str(), 0700);
    mkdir((home_ + "/.codex").c_str(), 0700);
    mkdir((home_ + "/.pi").c_str(), 0700);
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + home_).c_str()), 0); }
  void write(const std::string& rel, const std::string& text) {
    std::string p = home_ + "/" + rel;
    ASSERT_EQ(std::system(("mkdir -p \"$(dirname " + p + ")\"").c_str()), 0);
    std::ofstream(p) << text;
  }
  std::string read(const std::string& rel) const {
    std::ifstream f(home_ + "/" + rel);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  bool exists(const std::string& rel) const {
    struct stat st;
    return lstat((home_ + "/" + rel).c_str(), &st) == 0;
  }
  AgentConfigWatch watch() const { return AgentConfigWatch::before(home_, rules_, known_agent_configs()); }
  static void tick() { usleep(20'000); }  // the kernel's coarse clock moves on
  std::string home_;
  std::vector<PathRule> rules_;
};

TEST_F(AgentConfigWatchTest, OrdinaryStateIsLeftAlone) {
  write(".claude.json", R"({"numStartups": 1})");
  write(".claude/hooks/fmt.sh", "#!/bin/sh\n");
  write(".codex/config.toml", "model = \"a\"\n");
  tick();
  AgentConfigWatch w = watch();
  write(".claude.json", R"({"numStartups": 2})");
  write(".claude/projects/p/session.jsonl", "{}\n");
  write(".codex/config.toml", "model = \"b\"\n");
  write(".pi/agent/sessions/s.jsonl", "{}\n");
  EXPECT_TRUE(w.after().empty());
  EXPECT_EQ(read(".claude.json"), R"({"numStartups": 2})");
  EXPECT_EQ(read(".codex/config.toml"), "model = \"b\"\n");
}

// What the host wrote in the clock tick just before the run is not taken for the run's: the
// inodes in a watched directory are recorded before it and compared exactly.
TEST_F(AgentConfigWatchTest, WrittenJustBeforeTheRunIsNotTheRuns) {
  write(".claude/hooks/fmt.sh", "#!/bin/sh\n");
  write(".pi/agent/extensions/e/index.ts", "x");
  AgentConfigWatch w = watch();  // no tick: same coarse clock tick, or a multigrain ctime ahead of it
  EXPECT_TRUE(w.after().empty());
  EXPECT_TRUE(exists(".claude/hooks/fmt.sh"));
  EXPECT_TRUE(exists(".pi/agent/extensions/e/index.ts"));
}

TEST_F(AgentConfigWatchTest, JsonKeysPutBackAndTheSandboxsVersionKept) {
  write(".claude.json", R"({"numStartups": 1})");
  AgentConfigWatch w = watch();
  const std::string planted = R"({"zeta": 0, "numStartups": 2, "mcpServers": {"e": {"command": "sh"}}, "alpha": {}})";
  write(".claude.json", planted);
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, home_ + "/.claude.json");
  EXPECT_NE(left[0].what.find("mcpServers"), std::string::npos) << left[0].what;
  EXPECT_NE(left[0].action.find(home_ + "/.claude.json.paddock-rejected"), std::string::npos) << left[0].action;
  json now = json::parse(read(".claude.json"));
  EXPECT_EQ(now["numStartups"], 2);
  EXPECT_FALSE(now.contains("mcpServers"));
  EXPECT_EQ(read(".claude.json.paddock-rejected"), planted);
  EXPECT_LT(read(".claude.json").find("zeta"), read(".claude.json").find("alpha"));  // the agent's order kept
}

TEST_F(AgentConfigWatchTest, ParseFailureRestoresThePreviousBytes) {
  write(".claude.json", R"({"numStartups": 1})");
  write(".codex/config.toml", "# mine\nmodel = \"a\"\n");
  AgentConfigWatch w = watch();
  write(".claude.json", R"({"mcpServers": )");
  write(".codex/config.toml", "notify = [\n");
  auto left = w.after();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(read(".claude.json"), R"({"numStartups": 1})");
  EXPECT_EQ(read(".codex/config.toml"), "# mine\nmodel = \"a\"\n");
  EXPECT_EQ(read(".codex/config.toml.paddock-rejected"), "notify = [\n");
}

TEST_F(AgentConfigWatchTest, TomlChangeRestoresTheWholeFile) {
  write(".codex/config.toml", "# mine\nmodel = \"a\"\n");
  AgentConfigWatch w = watch();
  write(".codex/config.toml", "model = \"b\"\nnotify = [\"sh\", \"-c\", \"touch x\"]\n");
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].what.find("notify"), std::string::npos);
  EXPECT_EQ(read(".codex/config.toml"), "# mine\nmodel = \"a\"\n");
}

TEST_F(AgentConfigWatchTest, SymlinkSwapIsMovedAsideAndTheFileRestored) {
  write(".claude/settings.json", R"({"model": "x"})");
  write("elsewhere.json", R"({"hooks": {}})");
  AgentConfigWatch w = watch();
  ASSERT_EQ(unlink((home_ + "/.claude/settings.json").c_str()), 0);
  ASSERT_EQ(symlink((home_ + "/elsewhere.json").c_str(), (home_ + "/.claude/settings.json").c_str()), 0);
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].what.find("became a symlink"), std::string::npos) << left[0].what;
  struct stat st;
  ASSERT_EQ(lstat((home_ + "/.claude/settings.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(read(".claude/settings.json"), R"({"model": "x"})");
  ASSERT_EQ(lstat((home_ + "/.claude/settings.json.paddock-rejected").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(AgentConfigWatchTest, CreatedFilesWithSuchKeysAreMovedAside) {
  AgentConfigWatch w = watch();
  write(".claude/settings.json", R"({"hooks": {"SessionStart": []}})");
  write(".claude.json", R"({"numStartups": 1})");  // its first start: kept
  write(".pi/agent/settings.json", R"({"extensions": ["/tmp/e.ts"]})");
  auto left = w.after();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_FALSE(exists(".claude/settings.json"));
  EXPECT_TRUE(exists(".claude/settings.json.paddock-rejected"));
  EXPECT_TRUE(exists(".claude.json"));
  EXPECT_FALSE(exists(".pi/agent/settings.json"));  // its directory was made by the run too
  EXPECT_TRUE(exists(".pi/agent/settings.json.paddock-rejected"));
}

TEST_F(AgentConfigWatchTest, CodeDirectoriesChangedOrCreatedAreMovedAside) {
  write(".claude/hooks/fmt.sh", "#!/bin/sh\n");
  write(".claude/plugins/p/hooks/hooks.json", "{}");
  tick();
  AgentConfigWatch w = watch();
  write(".claude/hooks/evil.sh", "#!/bin/sh\n");
  write(".claude/plugins/p/hooks/hooks.json", R"({"hooks": 1})");  // deep, in place
  write(".pi/agent/extensions/evil.ts", "export default () => {}\n");
  auto left = w.after();
  ASSERT_EQ(left.size(), 3u);
  EXPECT_TRUE(exists(".claude/hooks/fmt.sh"));
  EXPECT_FALSE(exists(".claude/hooks/evil.sh"));
  // Out of the directory the agent scans, whatever the name.
  EXPECT_TRUE(exists(".claude/hooks.paddock-quarantine/evil.sh"));
  EXPECT_FALSE(exists(".claude/plugins/p"));
  EXPECT_TRUE(exists(".claude/plugins.paddock-quarantine/p/hooks/hooks.json"));
  EXPECT_FALSE(exists(".pi/agent/extensions"));
  EXPECT_TRUE(exists(".pi/agent/extensions.paddock-quarantine/evil.ts"));
}

// A small file that was there before the run is put back; the sandbox's version kept aside.
TEST_F(AgentConfigWatchTest, AFileThatWasThereIsRestored) {
  write(".codex/rules/default.rules", "prefix_rule(pattern=[\"ls\"])\n");
  tick();
  AgentConfigWatch w = watch();
  write(".codex/rules/default.rules", "prefix_rule(pattern=[\"ls\"])\nprefix_rule(pattern=[\"curl\"])\n");
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].action.find("previous file restored"), std::string::npos) << left[0].action;
  EXPECT_EQ(read(".codex/rules/default.rules"), "prefix_rule(pattern=[\"ls\"])\n");
  EXPECT_NE(read(".codex/rules.paddock-quarantine/default.rules").find("curl"), std::string::npos);
}

// A name that looks like what paddock moved aside is not passed over; what an earlier run moved
// aside is not moved again; a second one goes beside the first.
TEST_F(AgentConfigWatchTest, QuarantineNamesAreNotTrusted) {
  write(".claude/skills/a/SKILL.md", "x");
  tick();
  AgentConfigWatch first = watch();
  write(".claude/skills/a/SKILL.md", "y");
  ASSERT_EQ(first.after().size(), 1u);
  tick();
  AgentConfigWatch w = watch();
  write(".claude/skills/a/SKILL.md", "z");
  write(".claude/skills/b.paddock-quarantine/SKILL.md", "evil");
  auto left = w.after();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_FALSE(exists(".claude/skills/a"));
  EXPECT_FALSE(exists(".claude/skills/b.paddock-quarantine"));
  EXPECT_EQ(read(".claude/skills.paddock-quarantine/a/SKILL.md"), "y");
  EXPECT_EQ(read(".claude/skills.paddock-quarantine/a.1/SKILL.md"), "z");
  EXPECT_EQ(read(".claude/skills.paddock-quarantine/b.paddock-quarantine/SKILL.md"), "evil");
}

TEST_F(AgentConfigWatchTest, ACreatedDirectorySymlinkOnTheWayIsMovedAside) {
  write("outside/extensions/evil.ts", "x");
  AgentConfigWatch w = watch();
  ASSERT_EQ(symlink((home_ + "/outside").c_str(), (home_ + "/.pi/agent").c_str()), 0);
  auto left = w.after();
  ASSERT_GE(left.size(), 1u);
  EXPECT_EQ(left[0].path, home_ + "/.pi/agent");
  EXPECT_FALSE(exists(".pi/agent"));
  EXPECT_TRUE(exists(".pi/agent.paddock-quarantine"));
}

// With HOME writable, ~/.claude itself renamed away and another put in its place: the
// descriptor held since before sees the old one; the new one is found by its path.
TEST_F(AgentConfigWatchTest, AStateDirectoryReplacedIsFound) {
  rules_.push_back(PathRule{home_, home_, Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"}, false, {}});
  write(".claude/settings.json", R"({"model": "x"})");
  AgentConfigWatch w = watch();
  ASSERT_EQ(rename((home_ + "/.claude").c_str(), (home_ + "/old").c_str()), 0);
  write(".claude/settings.json", R"({"hooks": {}})");
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, home_ + "/.claude");
  EXPECT_FALSE(exists(".claude"));
  EXPECT_TRUE(exists(".claude.paddock-quarantine/settings.json"));
}

TEST_F(AgentConfigWatchTest, NotWatchedWithoutAWritableRule) {
  rules_.clear();
  write(".claude.json", R"({"numStartups": 1})");
  AgentConfigWatch w = watch();
  write(".claude.json", R"({"mcpServers": {}})");
  EXPECT_TRUE(w.after().empty());
}

// Every read-only path a built-in profile puts inside one of its writable ones is also checked
// after the run: the mount alone does not hold where it is absent (nothing to bind) nor in the
// fallback (Landlock only adds access).
TEST(AgentConfigProfiles, EveryReadOnlyPathInsideAWritableOneIsChecked) {
  std::set<std::string> checked;
  for (const KnownConfig& k : known_agent_configs()) checked.insert("/home/u/" + k.rel);
  for (const BuiltinProfile& bp : builtin_profiles()) {
    auto fs = std::make_shared<FakeFs>();
    fs->dir("/usr/bin").dir("/etc").dir("/home/u/proj");
    // Every path the profile names exists (a read_if_exists rule needs something to bind).
    std::string text = bp.toml;
    for (std::size_t at = text.find("\"~/"); at != std::string::npos; at = text.find("\"~/", at + 1)) {
      std::string p = "/home/u/" + text.substr(at + 3, text.find('"', at + 1) - at - 3);
      if (p.find(".json") != std::string::npos || p.find(".yml") != std::string::npos || p.find(".toml") != std::string::npos)
        fs->file(p);
      else
        fs->dir(p);
    }
    HostContext ctx;
    ctx.cwd = "/home/u/proj";
    ctx.home = "/home/u";
    ctx.user = "u";
    ctx.fs = fs;
    PolicyBuilder b(ctx);
    auto src = find_profile(bp.name, ctx);
    ASSERT_TRUE(src.ok()) << bp.name;
    ASSERT_TRUE(apply_profile(*src, b, ctx).ok()) << bp.name;
    auto policy = b.build();
    ASSERT_TRUE(policy.ok()) << bp.name;
    for (const PathRule& ro : policy->paths) {
      if (grants(ro.access, Access::Write) || ro.origin.kind != Origin::Kind::Profile) continue;
      for (const PathRule& rw : policy->paths)
        if (grants(rw.access, Access::Write) && rw.path != ro.path && rw.path != "/home/u/proj" &&
            ro.path.rfind(rw.path + "/", 0) == 0)
          EXPECT_EQ(checked.count(ro.path), 1u) << bp.name << ": " << ro.path << " is read-only inside " << rw.path
                                                << " but not in known_agent_configs()";
    }
  }
}

// docs/profiles.md names every path checked after the run: the docs stay true when the list grows.
TEST(AgentConfigDocs, EveryPathIsListed) {
  std::ifstream in(std::string(PADDOCK_SOURCE_DIR) + "/docs/profiles.md");
  ASSERT_TRUE(in) << "docs/profiles.md not found next to the sources";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const auto section = text.find("### What the agents run on the host");
  ASSERT_NE(section, std::string::npos);
  const std::string table = text.substr(section);
  for (const KnownConfig& k : known_agent_configs())
    EXPECT_NE(table.find("`~/" + k.rel + "`"), std::string::npos) << "~/" << k.rel << " is not in docs/profiles.md";
}

}  // namespace
}  // namespace paddock::gate
