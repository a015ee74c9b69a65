#include "mcp/config.h"

#include <gtest/gtest.h>

namespace paddock::mcp {
namespace {

TEST(Config, BuiltinsUseSystemInterpreters) {
  Config cfg = builtin_config();
  for (const char* name : {"shell", "python", "node"}) {
    const Environment* env = cfg.find(name);
    if (!env) continue;  // interpreter not installed on this host
    EXPECT_TRUE(env->builtin);
    EXPECT_TRUE(env->warmable);
    EXPECT_EQ(env->command[0][0], '/') << name;
    EXPECT_EQ(env->limits.timeout_seconds, 30u);
  }
  ASSERT_NE(cfg.find("shell"), nullptr) << "bash is always installed";
}

TEST(Config, DefaultsAndOverrides) {
  auto cfg = parse_config(R"(
[defaults]
timeout_seconds = 5
memory_mb = 256
max_output_bytes = 4096
pids = 10
warm = 1

[environments.shell]
timeout_seconds = 7
)",
                          "mcp.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  const Environment* sh = cfg->find("shell");
  ASSERT_NE(sh, nullptr);
  EXPECT_EQ(sh->limits.timeout_seconds, 7u);
  EXPECT_EQ(sh->limits.memory_mb, 256u);
  EXPECT_EQ(sh->limits.max_output_bytes, 4096u);
  EXPECT_EQ(sh->limits.pids, 10u);
  EXPECT_EQ(sh->warm, 1u);
  EXPECT_TRUE(sh->builtin);
}

TEST(Config, UserEnvironment) {
  auto cfg = parse_config(R"(
[environments.awk]
command = ["awk", "-f"]
code = "file"
file_name = "prog.awk"
description = "an awk program"
read_only = ["/usr/share/awk"]
env = { LC_ALL = "C" }
network = true
memory_mb = 64
)",
                          "mcp.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  const Environment* e = cfg->find("awk");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->command[0][0], '/');
  EXPECT_EQ(e->command[1], "-f");
  EXPECT_EQ(e->code_via, CodeVia::File);
  EXPECT_EQ(e->file_name, "prog.awk");
  EXPECT_FALSE(e->warmable);
  EXPECT_EQ(e->warm, 0u);
  EXPECT_TRUE(e->network);
  EXPECT_EQ(e->limits.memory_mb, 64u);
  EXPECT_EQ(e->env.at(0).first, "LC_ALL");
  EXPECT_EQ(e->read_only.at(0), "/usr/share/awk");
}

TEST(Config, DomainLists) {
  auto cfg = parse_config(R"(
[environments.python]
allow_domains = ["pypi.org", "*.pythonhosted.org:443"]
[environments.shell]
network = true
deny_domains = ["evil.example"]
)",
                          "mcp.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  EXPECT_EQ(cfg->find("python")->allow_domains,
            (std::vector<std::string>{"pypi.org", "*.pythonhosted.org:443"}));
  EXPECT_FALSE(cfg->find("python")->network);
  EXPECT_TRUE(cfg->find("shell")->network);
  EXPECT_EQ(cfg->find("shell")->deny_domains, std::vector<std::string>{"evil.example"});
}

TEST(Config, DisableBuiltin) {
  auto cfg = parse_config("[environments.node]\nenabled = false\n", "m.toml");
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->find("node"), nullptr);
}

struct BadCase {
  const char* toml;
  const char* expected;  // describe() verbatim
};

TEST(Config, ErrorsPointAtTheNode) {
  const BadCase cases[] = {
      {"[defaults]\ntimeout_secods = 5\n",
       "m.toml:2:1: unknown key \"timeout_secods\" in [defaults]"},
      {"[defaults]\ntimeout_seconds = \"5\"\n", "m.toml:2:19: timeout_seconds must be an integer between 1 and 86400 (got a string)"},
      {"[defaults]\nmemory_mb = 1\n", "m.toml:2:13: memory_mb must be an integer between 16 and 1048576 (got 1)"},
      {"[environments.ruby]\ncode = \"stdin\"\n", "m.toml:1:1: environment \"ruby\" needs a command"},
      {"[environments.x]\ncommand = [\"/bin/sh\"]\ncode = \"pipe\"\n",
       "m.toml:3:8: code must be \"stdin\", \"arg\" or \"file\", not \"pipe\""},
      {"[environments.x]\ncommand = [\"no-such-interpreter-here\"]\n",
       "m.toml:2:11: \"no-such-interpreter-here\" not found in /usr/local/bin:/usr/bin:/bin"},
      {"[environments.x]\ncommand = [\"/bin/sh\"]\nread_only = [\"rel\"]\n",
       "m.toml:3:13: read_only paths must be absolute: \"rel\""},
      {"[environments.python]\nallow_domains = [\"ok.example\", \"bad:port\"]\n",
       "m.toml:2:32: allow_domains: \"bad:port\": invalid port"},
      {"[environments.python]\ndeny_domains = [\"a*b.example\"]\n",
       "m.toml:2:17: deny_domains: \"a*b.example\": \"*\" is only allowed as a leading \"*.\""},
      {"[environments.python]\nnetwork = true\nallow_domains = [\"pypi.org\"]\n",
       "m.toml:3:17: network = true shares the whole host network, allow_domains narrows it to a list"},
      {"[defaults\n", nullptr},
  };
  for (const auto& c : cases) {
    auto cfg = parse_config(c.toml, "m.toml");
    ASSERT_FALSE(cfg.ok()) << c.toml;
    if (c.expected) {
      EXPECT_EQ(cfg.error().describe(), c.expected) << c.toml;
    } else {
      EXPECT_EQ(cfg.error().where.rfind("m.toml:1:", 0), 0u) << cfg.error().describe();
    }
  }
}

TEST(Config, DidYouMean) {
  auto cfg = parse_config("[environments.shell]\ntimout_seconds = 3\n", "m.toml");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().hint, "did you mean \"timeout_seconds\"?");
}

TEST(Config, MissingFile) {
  auto cfg = load_config("/nonexistent/mcp.toml");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().where, "/nonexistent/mcp.toml");
}

}  // namespace
}  // namespace paddock::mcp
