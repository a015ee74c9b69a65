#include "paddock/profile.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>

#include "policy/did_you_mean.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

// "FILE:LINE:COL: message (hint)", as the CLI prints it.
std::string shown(const Error& e) {
  std::string s = e.describe();
  if (!e.hint.empty()) s += " (" + e.hint + ")";
  return s;
}

class ProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-profile-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ::setenv("XDG_CONFIG_HOME", (dir_ + "/config").c_str(), 1);
    ASSERT_EQ(std::system(("mkdir -p " + dir_ + "/config/paddock/profiles").c_str()), 0);

    fs_ = std::make_shared<FakeFs>();
    fs_->dir("/usr/bin").dir("/etc").dir("/home/u/proj").dir("/home/u/docs").dir("/home/u/.codex");
    ctx_.cwd = "/home/u/proj";
    ctx_.home = "/home/u";
    ctx_.user = "u";
    ctx_.fs = fs_;
  }
  void TearDown() override {
    ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0);
    ::unsetenv("XDG_CONFIG_HOME");
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/config/paddock/profiles/" + name + ".toml") << text;
  }
  std::string file(const std::string& name) { return dir_ + "/config/paddock/profiles/" + name + ".toml"; }

  // Applies TOML text as the file "p.toml" and returns the error, shown as the CLI shows it.
  std::string error_of(const std::string& text) {
    PolicyBuilder b(ctx_);
    auto r = apply_profile({"p", "p.toml", text}, b, ctx_);
    if (r.ok()) return "ok";
    return shown(r.error());
  }

  Result<Policy> policy_of(const std::string& name) {
    PolicyBuilder b(ctx_);
    auto src = find_profile(name, ctx_);
    if (!src) return src.error();
    if (auto r = apply_profile(*src, b, ctx_); !r) return r.error();
    return b.build();
  }

  std::string dir_;
  std::shared_ptr<FakeFs> fs_;
  HostContext ctx_;
};

TEST(DidYouMean, Distances) {
  EXPECT_EQ(edit_distance("alow", "allow"), 1u);
  EXPECT_EQ(edit_distance("raed", "read"), 1u);  // transposition
  EXPECT_EQ(closest_match("alow", {"allow", "read", "write"}), "allow");
  EXPECT_EQ(closest_match("banana", {"allow", "read", "write"}), "");
}

TEST_F(ProfileTest, BuiltinsAreValid) {
  auto names = builtin_profile_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "default"), names.end());
  for (const auto& n : names) {
    auto src = find_profile(n, ctx_);
    ASSERT_TRUE(src.ok()) << n;
    EXPECT_EQ(src->file, "<built-in:" + n + ">");
    PolicyBuilder b(ctx_);
    auto r = apply_profile(*src, b, ctx_);
    EXPECT_TRUE(r.ok()) << n << ": " << shown(r.error());
    auto p = b.build();
    EXPECT_TRUE(p.ok()) << n << ": " << shown(p.error());
    if (p.ok()) {
      EXPECT_EQ(p->profile, n);
    }
  }
}

TEST_F(ProfileTest, ClaudeSkipsMissingStateAndFiltersNetwork) {
  auto p = policy_of("claude");
  ASSERT_TRUE(p.ok()) << shown(p.error());
  EXPECT_EQ(p->find_rule("/home/u/.claude"), nullptr);
  EXPECT_EQ(p->network.mode, NetMode::Filtered);
  EXPECT_NE(std::find(p->network.allow_domains.begin(), p->network.allow_domains.end(),
                      "api.anthropic.com"),
            p->network.allow_domains.end());
  EXPECT_NE(std::find(p->env.pass.begin(), p->env.pass.end(), "ANTHROPIC_API_KEY"), p->env.pass.end());

  auto codex = policy_of("codex");
  ASSERT_TRUE(codex.ok()) << shown(codex.error());
  ASSERT_NE(codex->find_rule("/home/u/.codex"), nullptr);
  EXPECT_EQ(codex->find_rule("/home/u/.codex")->access, Access::ReadWrite);
  EXPECT_EQ(codex->find_rule("/home/u/.codex")->origin.kind, Origin::Kind::Profile);
  EXPECT_EQ(codex->find_rule("/home/u/.codex")->origin.detail, "<built-in:codex>:12:20");
}

TEST_F(ProfileTest, PiGetsItsStateAndTheProviderApisOnly) {
  fs_->dir("/home/u/.pi/agent");
  auto p = policy_of("pi");
  ASSERT_TRUE(p.ok()) << shown(p.error());
  ASSERT_NE(p->find_rule("/home/u/.pi/agent"), nullptr);
  EXPECT_EQ(p->find_rule("/home/u/.pi/agent")->access, Access::ReadWrite);
  EXPECT_EQ(p->find_rule("/home/u/.pi"), nullptr);  // its directory only: nothing else of ~/.pi
  EXPECT_EQ(p->network.mode, NetMode::Filtered);
  const auto& allow = p->network.allow_domains;
  for (const char* d : {"api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"})
    EXPECT_NE(std::find(allow.begin(), allow.end(), d), allow.end()) << d;
  for (const auto& d : allow) EXPECT_EQ(d.find('*'), std::string::npos) << "no wildcards: " << d;
  EXPECT_NE(std::find(p->env.pass.begin(), p->env.pass.end(), "GEMINI_API_KEY"), p->env.pass.end());
  // Other agents' state stays out.
  EXPECT_EQ(p->find_rule("/home/u/.codex"), nullptr);
}

TEST_F(ProfileTest, BadDomainPatternNamesItsPosition) {
  {
    PolicyBuilder b(ctx_);
    ASSERT_TRUE(apply_profile({"p", "p.toml", "[network]\nmode = \"filtered\"\nallow = [\"api.example.com\", \"bad domain\"]\n"},
                              b, ctx_).ok());
    auto p = b.build();
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(shown(p.error()), "p.toml:3:29: invalid domain pattern \"bad domain\" (use host, *.domain, host:port or an "
                                "address range (docs/network.md))");
  }
  // Patterns that only the egress filter's grammar rejects keep their position for it.
  PolicyBuilder b(ctx_);
  ASSERT_TRUE(apply_profile({"p", "p.toml", "[network]\nmode = \"filtered\"\ndeny = [\"a.com\", \"x:99999\"]\n"}, b, ctx_).ok());
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << shown(p.error());
  ASSERT_EQ(p->network.deny_where.size(), 2u);
  EXPECT_EQ(p->network.deny_where[1], "p.toml:3:18");
}

TEST_F(ProfileTest, UnknownProfileListsAvailableOnes) {
  write("mine", "");
  auto r = find_profile("nope", ctx_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(shown(r.error()), "unknown profile \"nope\" (available: aider, claude, codex, default, gemini, goose, mine, opencode, pi (user profiles live in " +
                                  dir_ + "/config/paddock/profiles))");
}

TEST_F(ProfileTest, UserProfileShadowsBuiltin) {
  write("claude", "description = \"mine\"\n");
  auto src = find_profile("claude", ctx_);
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(src->file, file("claude"));
  auto by_path = find_profile(file("claude"), ctx_);
  ASSERT_TRUE(by_path.ok());
  EXPECT_EQ(by_path->name, file("claude"));
  auto missing = find_profile(dir_ + "/none.toml", ctx_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().describe(), dir_ + "/none.toml: cannot read profile: No such file or directory");
}

TEST_F(ProfileTest, ErrorsCarryPositionsAndHints) {
  EXPECT_EQ(error_of("[filesystem]\nalow = [\"~/docs\"]\n"),
            "p.toml:2:1: unknown key \"alow\" in [filesystem] (did you mean \"allow\"?)");
  EXPECT_EQ(error_of("[filesytem]\nallow = []\n"),
            "p.toml:1:2: unknown table [filesytem] (did you mean \"filesystem\"?)");
  EXPECT_EQ(error_of("extend = \"default\"\n"),
            "p.toml:1:1: unknown key \"extend\" (did you mean \"extends\"?)");
  EXPECT_EQ(error_of("[network]\nmode = \"of\"\n"),
            "p.toml:2:8: [network] mode must be one of off, on, filtered (got \"of\") (did you mean \"off\"?)");
  EXPECT_EQ(error_of("[network]\nmode = 1\n"),
            "p.toml:2:8: [network] mode must be one of off, on, filtered (got an integer)");
  EXPECT_EQ(error_of("[network]\nmode = \"on\"\nallow = [\"github.com\"]\n"),
            "p.toml:3:9: [network] domain lists need mode = \"filtered\" (mode is \"on\") (drop the lists, or set mode = \"filtered\")");
  EXPECT_EQ(error_of("[filesystem]\nread = [\"~/docs\", 3]\n"),
            "p.toml:2:19: [filesystem] read must be an array of strings (got an integer in it)");
  EXPECT_EQ(error_of("[filesystem]\nread = \"~/docs\"\n"),
            "p.toml:2:8: [filesystem] read must be an array of strings (got a string)");
  EXPECT_EQ(error_of("[filesystem]\ncwd = \"rw+\"\n"),
            "p.toml:2:7: [filesystem] cwd must be one of read+write, read, write, none (got \"rw+\")");
  EXPECT_EQ(error_of("[env]\npass = [\"OK\", \"1BAD\"]\n"),
            "p.toml:2:15: [env] pass: invalid variable name \"1BAD\" (names are letters, digits and '_', and do not start with a digit)");
  EXPECT_EQ(error_of("[env.set]\nFOO = 1\n"), "p.toml:2:7: [env] set: FOO must be a string (got an integer)");
  EXPECT_EQ(error_of("[sandbox]\nrequire_namespaces = \"yes\"\n"),
            "p.toml:2:22: [sandbox] require_namespaces must be true or false (got a string)");
  EXPECT_EQ(error_of("[limits]\npids = 0\n"), "p.toml:2:8: [limits] pids must be a positive integer (got 0)");
  EXPECT_EQ(error_of("[limits]\ncpu = -1\n"),
            "p.toml:2:7: [limits] cpu must be a positive number of cores, like 1.5 (got -1)");
  EXPECT_EQ(error_of("network = \"on\"\n"), "p.toml:1:11: network must be a table (got a string) (write it as the table [network])");
  // TOML syntax errors come from the parser, with its position.
  std::string syntax = error_of("[filesystem\n");
  EXPECT_EQ(syntax.rfind("p.toml:1:", 0), 0u) << syntax;
}

TEST_F(ProfileTest, LimitsUseUnits) {
  std::string bad = error_of("[limits]\nmemory = \"2X\"\n");
  EXPECT_EQ(bad.rfind("p.toml:2:10: [limits] memory: ", 0), 0u) << bad;
  PolicyBuilder b(ctx_);
  auto r = apply_profile({"p", "p.toml",
                          "[limits]\nmemory = \"2G\"\npids = 256\ncpu = 1.5\ntimeout = \"30m\"\n"
                          "tmp_size = 1048576\nmax_open_files = 1024\ncore_dumps = true\n"},
                         b, ctx_);
  ASSERT_TRUE(r.ok()) << shown(r.error());
  auto p = b.build();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p->limits.memory_bytes, 2ull << 30);
  EXPECT_EQ(*p->limits.pids, 256u);
  EXPECT_EQ(*p->limits.cpu, 1.5);
  EXPECT_EQ(p->limits.timeout->count(), 30 * 60 * 1000);
  EXPECT_EQ(*p->limits.tmp_size_bytes, 1048576u);
  EXPECT_EQ(*p->limits.max_open_files, 1024u);
  EXPECT_TRUE(p->limits.core_dumps);
}

TEST_F(ProfileTest, ExtendsChainAndFlagsOverride) {
  write("base", "[filesystem]\nread = [\"~/docs\"]\n[network]\nmode = \"on\"\n");
  write("child", "extends = \"base\"\n[filesystem]\nallow = [\"~/docs\"]\n[env]\npass = [\"GITHUB_TOKEN\"]\n");
  PolicyBuilder b(ctx_);
  auto src = find_profile("child", ctx_);
  ASSERT_TRUE(src.ok());
  ASSERT_TRUE(apply_profile(*src, b, ctx_).ok());
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << shown(p.error());
  EXPECT_EQ(p->profile, "child");
  EXPECT_EQ(p->network.mode, NetMode::Host);
  EXPECT_EQ(p->find_rule("/home/u/docs")->access, Access::ReadWrite);  // child overrides base
  EXPECT_EQ(p->find_rule("/home/u/docs")->origin.detail, file("child") + ":3:10");

  // Flags come after the profile and override it.
  b.allow("~/docs", Access::Read, {Origin::Kind::Flag, "--read ~/docs"});
  auto q = b.build();
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->find_rule("/home/u/docs")->access, Access::Read);
}

TEST_F(ProfileTest, ExtendsCycleAndUnknownParent) {
  write("a", "extends = \"b\"\n");
  write("b", "\nextends = \"a\"\n");
  PolicyBuilder b(ctx_);
  auto src = find_profile("a", ctx_);
  ASSERT_TRUE(src.ok());
  auto r = apply_profile(*src, b, ctx_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(shown(r.error()), file("b") + ":2:11: profiles extend each other in a cycle: " + file("a") +
                                  " -> " + file("b") + " -> " + file("a"));
  EXPECT_FALSE(b.build().ok());  // the builder keeps the error

  EXPECT_EQ(error_of("extends = \"nosuch\"\n").substr(0, 40), "p.toml:1:11: unknown profile \"nosuch\" (a");
}

TEST_F(ProfileTest, MissingPathInProfileNamesThePosition) {
  PolicyBuilder b(ctx_);
  ASSERT_TRUE(apply_profile({"p", "p.toml", "[filesystem]\nread = [\"~/nope\"]\n"}, b, ctx_).ok());
  auto p = b.build();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().describe(), "p.toml:2:9: /home/u/nope: no such file or directory");
}

}  // namespace
}  // namespace paddock

namespace paddock {
namespace {

TEST_F(ProfileTest, CreateFilesTakesStateFilesUnderHomeWithTheirContent) {
  PolicyBuilder b(ctx_);
  ASSERT_TRUE(apply_profile({"p", "p.toml", "[filesystem]\ncreate_files = { \"~/.agent.json\" = \"{}\" }\n"}, b, ctx_).ok());
  auto files = b.files_to_create();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "/home/u/.agent.json");
  EXPECT_EQ(files[0].content, "{}");
  EXPECT_EQ(error_of("[filesystem]\ncreate_files = { \"/etc/x\" = \"\" }\n"),
            "p.toml:2:29: [filesystem] create_files takes files under HOME, written \"~/NAME\" (got \"/etc/x\")");
  EXPECT_EQ(error_of("[filesystem]\ncreate_files = { \"~/../x\" = \"\" }\n").rfind("p.toml:2:", 0), 0u);
  EXPECT_EQ(error_of("[filesystem]\ncreate_files = { \"~/x\" = 1 }\n"),
            "p.toml:2:26: [filesystem] create_files: the initial content of ~/x must be a string of at most 64 KiB");
  EXPECT_EQ(error_of("[filesystem]\ncreate_files = [\"~/x\"]\n").rfind("p.toml:2:16: [filesystem] create_files must be a table", 0), 0u);
}

}  // namespace
}  // namespace paddock

namespace paddock {
namespace {

TEST_F(ProfileTest, CommandTableSetsTheAgentsArgumentsAndConflicts) {
  PolicyBuilder b(ctx_);
  ASSERT_TRUE(apply_profile({"p", "p.toml",
                             "[command]\nname = \"agent\"\nargs = [\"-c\", \"x=1\"]\n"
                             "conflicts = [\"-s ro\", \"--own-sandbox\"]\nconflict_message = \"no\"\n"},
                            b, ctx_)
                  .ok());
  ASSERT_TRUE(b.command_setup().has_value());
  EXPECT_EQ(b.command_setup()->name, "agent");
  EXPECT_EQ(b.command_setup()->args, (std::vector<std::string>{"-c", "x=1"}));
  EXPECT_EQ(b.command_setup()->conflicts, (std::vector<std::string>{"-s ro", "--own-sandbox"}));
  EXPECT_EQ(b.command_setup()->conflict_message, "no");
  EXPECT_EQ(b.command_setup()->origin.detail, "profile p");

  EXPECT_EQ(error_of("[command]\nargs = []\n"), "p.toml:1:1: [command] needs name = \"COMMAND\" (the command it applies to)");
  EXPECT_EQ(error_of("[command]\nname = \"/usr/bin/x\"\n"),
            "p.toml:2:8: [command] name must be a command name without '/' (got \"/usr/bin/x\")");
  EXPECT_EQ(error_of("[command]\nname = \"x\"\nargs = \"-v\"\n"),
            "p.toml:3:8: [command] args must be an array of strings (got a string)");
  EXPECT_EQ(error_of("[command]\nname = \"x\"\nconflicts = [\"s\"]\n"),
            "p.toml:3:13: [command] conflicts takes \"--FLAG\" or \"--FLAG VALUE\" (got \"s\")");
  EXPECT_EQ(error_of("[command]\nname = \"x\"\narg = []\n"),
            "p.toml:3:1: unknown key \"arg\" in [command] (did you mean \"args\"?)");
}

// [undo] (issue 14): read into the builder for `paddock run`; unknown keys are errors with their
// position like every other table.
TEST_F(ProfileTest, UndoTable) {
  PolicyBuilder b(ctx_);
  auto r = apply_profile({"p", "p.toml", "[undo]\nenabled = true\ndefault_excludes = false\nexcludes = [\"dist\", \"build/cache\"]\n"},
                         b, ctx_);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(b.undo_settings().enabled, true);
  EXPECT_EQ(b.undo_settings().default_excludes, false);
  EXPECT_EQ(b.undo_settings().excludes, (std::vector<std::string>{"dist", "build/cache"}));
  EXPECT_EQ(error_of("[undo]\nenable = true\n"), "p.toml:2:1: unknown key \"enable\" in [undo] (did you mean \"enabled\"?)");
  EXPECT_EQ(error_of("[undo]\nenabled = \"yes\"\n").rfind("p.toml:2:", 0), 0u);
  EXPECT_NE(error_of("[undo]\nexcludes = [\"../up\"]\n").find("relative to the project"), std::string::npos);
  PolicyBuilder c(ctx_);
  ASSERT_TRUE(apply_profile({"p", "p.toml", "[undo]\nmax_checkpoints = 40\n"}, c, ctx_).ok());
  EXPECT_EQ(c.undo_settings().max_checkpoints, 40u);
  EXPECT_EQ(error_of("[undo]\nmax_checkpoints = 0\n"),
            "p.toml:2:19: [undo] max_checkpoints must be a positive integer (got 0)");
}

}  // namespace
}  // namespace paddock
