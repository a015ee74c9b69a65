// Issue 26, item 10: every key and path of the agents' config that runs or trusts something is put
// back, one test each. The lists (gate/agent_lists.cc) are allowlists of what each agent writes
// itself; the table below is written from the agents, not from the lists: a key that runs
// something added to an allowlist fails its own test (the planted value stays).
#include <string>

#include "gate/agent_config.h"
#include "gate/tree_fixture.h"

namespace paddock::gate {
namespace {

struct Case {
  std::string rel;  // under HOME, as in known_agent_configs()
  std::string key;  // dotted key path as listed ("*" for every key at a level); "" for a whole file or directory
};

// One row per watched key (JSON, TOML) and per watched file or directory (whole, dir).
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {".claude.json", "mcpServers"},
      {".claude.json", "projects.*.mcpServers"},
      {".claude.json", "projects.*.enabledMcpjsonServers"},
      {".claude.json", "projects.*.disabledMcpjsonServers"},
      {".claude.json", "projects.*.enableAllProjectMcpServers"},
      {".claude.json", "projects.*.allowedTools"},
      {".claude.json", "projects.*.hasTrustDialogAccepted"},
      {".claude.json", "projects.*.hasClaudeMdExternalIncludesApproved"},
      {".claude/settings.json", ""},
      {".claude/hooks", ""},
      {".claude/plugins", ""},
      {".claude/commands", ""},
      {".claude/agents", ""},
      {".claude/skills", ""},
      {".codex/config.toml", "notify"},
      {".codex/config.toml", "mcp_servers"},
      {".codex/config.toml", "model_providers"},
      {".codex/config.toml", "model_provider"},
      {".codex/config.toml", "profiles"},
      {".codex/config.toml", "profile"},
      {".codex/config.toml", "approval_policy"},
      {".codex/config.toml", "sandbox_mode"},
      {".codex/config.toml", "sandbox_workspace_write"},
      {".codex/config.toml", "shell_environment_policy"},
      {".codex/config.toml", "projects"},
      {".codex/config.toml", "hooks"},
      {".codex/config.toml", "features"},
      {".codex/config.toml", "tools"},
      {".codex/rules", ""},
      {".codex/policy", ""},
      {".pi/agent/settings.json", "packages"},
      {".pi/agent/settings.json", "extensions"},
      {".pi/agent/settings.json", "skills"},
      {".pi/agent/settings.json", "shellPath"},
      {".pi/agent/settings.json", "shellCommandPrefix"},
      {".pi/agent/settings.json", "npmCommand"},
      {".pi/agent/auth.json", "*.key"},
      {".pi/agent/models.json", ""},
      {".pi/agent/extensions", ""},
      {".pi/agent/git", ""},
      {".pi/agent/skills", ""},
      {".local/share/opencode/bin", ""},
  };
  return c;
}

std::string dotted(const std::vector<std::string>& p) {
  std::string s;
  for (const std::string& c : p) s += (s.empty() ? "" : ".") + c;
  return s;
}

const KnownConfig* watched(const std::string& rel) {
  for (const KnownConfig& k : known_agent_configs())
    if (k.rel == rel) return &k;
  return nullptr;
}

constexpr const char* kPlanted = "PADDOCK-PLANTED";

// HOME is the fixture's root, writable whole.
class AgentConfigKey : public TreeFixtureOf<::testing::TestWithParam<Case>> {
 protected:
  // The watch, taken after the coarse clock moved on.
  AgentConfigWatch watch() const {
    usleep(20'000);
    return AgentConfigWatch::before(root_, policy_.paths, known_agent_configs());
  }
};

// A JSON document with VALUE at the key path KEY ("*" becoming one project's name).
std::string json_with(const std::string& key, const std::string& value) {
  std::vector<std::string> parts;
  for (std::size_t pos = 0;;) {
    std::size_t dot = key.find('.', pos);
    parts.push_back(key.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos));
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  std::string doc = "\"" + value + "\"";
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) doc = "{\"" + (*it == "*" ? std::string("/p") : *it) + "\": " + doc + "}";
  return doc;
}

TEST_P(AgentConfigKey, PlantedValueIsPutBack) {
  const Case& c = GetParam();
  const KnownConfig* k = watched(c.rel);
  ASSERT_NE(k, nullptr) << c.rel << " is no longer watched (known_agent_configs())";
  switch (k->format) {
    case ConfigFormat::Json: {
      // Before: the key holds the user's value (or the document lacks it); after: the planted one.
      const bool command = c.key == "*.key";
      write(c.rel, json_with(c.key, command ? "sk-user" : "user"));
      AgentConfigWatch w = watch();
      write(c.rel, json_with(c.key, command ? std::string("!") + kPlanted : kPlanted));
      auto left = w.after();
      ASSERT_EQ(left.size(), 1u) << c.rel << " " << c.key << ": the planted value was not put back";
      EXPECT_EQ(read(c.rel).find(kPlanted), std::string::npos) << read(c.rel);
      EXPECT_NE(read(c.rel + ".paddock-rejected").find(kPlanted), std::string::npos);
      break;
    }
    case ConfigFormat::Toml: {
      write(c.rel, "# mine\nmodel = \"a\"\n");
      AgentConfigWatch w = watch();
      write(c.rel, "model = \"a\"\n" + c.key + " = \"" + kPlanted + "\"\n");
      auto left = w.after();
      ASSERT_EQ(left.size(), 1u) << c.rel << " " << c.key << ": the planted value was not put back";
      EXPECT_EQ(read(c.rel), "# mine\nmodel = \"a\"\n");
      break;
    }
    case ConfigFormat::Whole: {
      write(c.rel, "{}\n");
      AgentConfigWatch w = watch();
      write(c.rel, std::string("{\"x\": \"") + kPlanted + "\"}\n");
      ASSERT_EQ(w.after().size(), 1u) << c.rel << ": the changed file was not restored";
      EXPECT_EQ(read(c.rel), "{}\n");
      break;
    }
    case ConfigFormat::Dir: {
      write(c.rel + "/mine", "ok\n");
      AgentConfigWatch w = watch();
      write(c.rel + "/planted", kPlanted);
      ASSERT_EQ(w.after().size(), 1u) << c.rel << ": what the run added was not moved aside";
      struct stat st;
      EXPECT_NE(lstat((root_ + "/" + c.rel + "/planted").c_str(), &st), 0);
      EXPECT_EQ(read(c.rel + "/mine"), "ok\n");
      break;
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.rel + (info.param.key.empty() ? "" : "_" + info.param.key);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(EveryEntry, AgentConfigKey, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace paddock::gate
