#include "integrate/integrate.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace paddock::integrate {
namespace {

class IntegrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-integrate-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    home_ = tmpl;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + home_).c_str()), 0); }
  std::string read(const std::string& rel) const {
    std::ifstream in(home_ + "/" + rel);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void write(const std::string& rel, const std::string& text) const {
    ASSERT_EQ(std::system(("mkdir -p \"$(dirname " + home_ + "/" + rel + ")\"").c_str()), 0);
    std::ofstream(home_ + "/" + rel) << text;
  }
  bool exists(const std::string& rel) const { return ::access((home_ + "/" + rel).c_str(), F_OK) == 0; }
  std::string home_;
};

TEST_F(IntegrateTest, ClaudeInstallKeepsTheUsersSettingsAndIsIdempotentAndReversible) {
  const std::string user_settings = R"({
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ]
  }
})";
  write(".claude/settings.json", user_settings);
  write(".claude/CLAUDE.md", "# mine\nkeep this\n");
  auto r = apply("claude", home_, false);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  auto s = nlohmann::json::parse(read(".claude/settings.json"));
  EXPECT_EQ(s["model"], "opus");
  ASSERT_EQ(s["hooks"]["PostToolUse"].size(), 2u);
  EXPECT_EQ(s["hooks"]["PostToolUse"][0]["hooks"][0]["command"], "prettier --write");
  EXPECT_NE(s["hooks"]["PostToolUse"][1]["hooks"][0]["command"].get<std::string>().find("paddock-hook.sh"),
            std::string::npos);
  EXPECT_EQ(s["hooks"]["PostToolUseFailure"].size(), 1u);
  EXPECT_EQ(read(".claude/hooks/paddock-hook.sh"), claude_hook_script());
  struct stat st;
  ASSERT_EQ(::stat((home_ + "/.claude/hooks/paddock-hook.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  const std::string md = read(".claude/CLAUDE.md");
  EXPECT_EQ(md.rfind("# mine\nkeep this\n", 0), 0u) << md;
  EXPECT_NE(md.find("PADDOCK_POLICY"), std::string::npos);
  // Again: nothing changes.
  const std::string settings_once = read(".claude/settings.json");
  ASSERT_TRUE(apply("claude", home_, false).ok());
  EXPECT_EQ(read(".claude/settings.json"), settings_once);
  EXPECT_EQ(read(".claude/CLAUDE.md"), md);
  // Removed: the user's files as they were (as JSON), the hook gone.
  ASSERT_TRUE(apply("claude", home_, true).ok());
  EXPECT_EQ(nlohmann::json::parse(read(".claude/settings.json")), nlohmann::json::parse(user_settings));
  EXPECT_EQ(read(".claude/CLAUDE.md"), "# mine\nkeep this\n");
  EXPECT_FALSE(exists(".claude/hooks/paddock-hook.sh"));
  ASSERT_TRUE(apply("claude", home_, true).ok());  // removing twice is fine
}

TEST_F(IntegrateTest, BrokenOrSymlinkedSettingsAreRefusedUntouched) {
  write(".claude/settings.json", "{ not json");
  auto r = apply("claude", home_, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().describe().find("not valid JSON"), std::string::npos) << r.error().describe();
  EXPECT_EQ(read(".claude/settings.json"), "{ not json");
  ASSERT_EQ(::unlink((home_ + "/.claude/settings.json").c_str()), 0);
  write("elsewhere.json", "{}");
  ASSERT_EQ(::symlink((home_ + "/elsewhere.json").c_str(), (home_ + "/.claude/settings.json").c_str()), 0);
  auto l = apply("claude", home_, false);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().describe().find("symlink"), std::string::npos) << l.error().describe();
  EXPECT_EQ(read("elsewhere.json"), "{}");
}

TEST_F(IntegrateTest, CodexGetsAnAgentsMdSection) {
  ASSERT_TRUE(apply("codex", home_, false).ok());
  EXPECT_NE(read(".codex/AGENTS.md").find("paddock"), std::string::npos);
  ASSERT_TRUE(apply("codex", home_, true).ok());
  EXPECT_FALSE(exists(".codex/AGENTS.md"));  // it held only our section
  EXPECT_FALSE(apply("aider", home_, false).ok());
}

// Every agent whose registration (src/agents/) names an integration is one `paddock integrate`
// offers and installs, and takes back: the registration and the code here agree.
TEST_F(IntegrateTest, EveryRegisteredIntegrationInstallsAndIsRemoved) {
  const auto names = agents();
  ASSERT_FALSE(names.empty());
  for (const auto& name : names) {
    auto added = apply(name, home_, false);
    ASSERT_TRUE(added.ok()) << name << ": " << added.error().describe();
    EXPECT_FALSE(added->empty()) << name;
    auto removed = apply(name, home_, true);
    ASSERT_TRUE(removed.ok()) << name << ": " << removed.error().describe();
  }
  EXPECT_FALSE(apply("aider", home_, false).ok());  // registered, with no integration
}

TEST(ManagedSection, ReplacedInPlaceAndRemovedCleanly) {
  const std::string once = with_managed_section("a\n", "one\n");
  EXPECT_EQ(with_managed_section(once, "one\n"), once);
  const std::string twice = with_managed_section(once, "two\n");
  EXPECT_EQ(twice.find("one"), std::string::npos);
  EXPECT_NE(twice.find("two"), std::string::npos);
  EXPECT_EQ(with_managed_section(twice, ""), "a\n");
  EXPECT_EQ(with_managed_section("", ""), "");
}

// The hook itself, run as Claude Code runs it (a shell command, the event on stdin): silent outside paddock and on success; on a
// sandbox-looking failure inside paddock, the policy's paths on stderr and exit 2.
TEST_F(IntegrateTest, TheHookExplainsARefusalOnlyInsidePaddock) {
  ASSERT_TRUE(apply("claude", home_, false).ok());
  // The policy as paddock writes it (PADDOCK_POLICY): one key per line, keys sorted.
  write("policy.json", nlohmann::json::parse(R"({"paths":[
      {"path":"/usr","access":"read","given":"/usr","optional":true,"origin":{"kind":"built-in","detail":"system"}},
      {"path":"/home/u/proj","access":"read+write","given":".","optional":false,"origin":{"kind":"cwd","detail":"current directory"}}],
      "network":{"mode":"off","allow":[],"deny":[]}})").dump(2));
  write("denied.json", R"({"tool_name":"Bash","tool_response":{"stderr":"touch: cannot touch '/etc/x': Read-only file system"}})");
  write("fine.json", R"({"tool_name":"Bash","tool_response":{"stdout":"ok"}})");
  const std::string hook = home_ + "/.claude/hooks/paddock-hook.sh";
  auto run = [&](const std::string& env, const std::string& input) {
    std::string cmd = env + " " + hook + " < " + home_ + "/" + input + " 2> " + home_ + "/err.txt";
    int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  const std::string inside = "PADDOCK_POLICY=" + home_ + "/policy.json";
  EXPECT_EQ(run(inside, "denied.json"), 2);
  const std::string err = read("err.txt");
  EXPECT_NE(err.find("  /home/u/proj (read+write)\n"), std::string::npos) << err;
  EXPECT_EQ(err.find("/usr (read)"), std::string::npos) << err;  // system directories are summed up
  EXPECT_NE(err.find("Network: off"), std::string::npos) << err;
  EXPECT_NE(err.find("--allow PATH"), std::string::npos) << err;
  EXPECT_EQ(run(inside, "fine.json"), 0);
  EXPECT_EQ(run("env -u PADDOCK_POLICY", "denied.json"), 0);
}

}  // namespace
}  // namespace paddock::integrate
