// Env precedence, settings merge, the config tree's transport, the runner's argv and caller checks.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "host/env.h"
#include "host/runner.h"
#include "host/settings.h"
#include "host/sync.h"

namespace paddock::host {
namespace {

std::string effective(const MergedEnv& m) {
  std::string s;
  for (const auto& v : m.effective) s += v.name + "=" + v.value + " [" + v.layer + " " + v.source + "]\n";
  return s;
}

TEST(HostEnv, ParsesEnvFiles) {
  auto r = parse_env_text("# comment\n\nA=1\nexport B = two words \nC=\"quoted # not a comment\"\nD='x'\nE=\n",
                          "/etc/paddock/pi.env", "managed file");
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 5u);
  EXPECT_EQ((*r)[0].source, "/etc/paddock/pi.env:3");
  EXPECT_EQ((*r)[1].name, "B");
  EXPECT_EQ((*r)[1].value, "two words");
  EXPECT_EQ((*r)[2].value, "quoted # not a comment");
  EXPECT_EQ((*r)[3].value, "x");
  EXPECT_EQ((*r)[4].value, "");
  auto bad = parse_env_text("A=1\nnot a line\n", "f.env", "synced");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "f.env:2: expected NAME=VALUE");
  bad = parse_env_text("1A=1\n", "f.env", "synced");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "f.env:1: \"1A\" is not a valid environment variable name");
}

// synced < managed env < managed env files; the runtime shell is lowest and passes only the
// names pass_env lets through.
TEST(HostEnv, PrecedenceGolden) {
  auto runtime = runtime_env({"TERM=xterm", "LC_ALL=C", "PI_TELEMETRY=1", "OPENAI_API_KEY=from-shell", "LANG=C.UTF-8"},
                             {"TERM", "LC_*", "LANG"});
  auto synced = parse_env_text("PI_TELEMETRY=1\nOPENAI_API_KEY=user-key\nLANG=de_DE.UTF-8\nUSER_ONLY=u\n",
                               "~/.pi/agent/paddock.env", "synced");
  ASSERT_TRUE(synced);
  std::vector<EnvVar> managed = {{"PI_TELEMETRY", "0", "managed", "host.toml:9:1"},
                                 {"OPENAI_BASE_URL", "https://proxy.example", "managed", "host.toml:10:1"}};
  auto files = parse_env_text("OPENAI_BASE_URL=https://audited.example\nOPENAI_API_KEY=org-key\n", "/etc/paddock/pi.env",
                              "managed file");
  ASSERT_TRUE(files);
  MergedEnv m = merge_env({runtime, *synced, managed, *files});
  EXPECT_EQ(effective(m),
            "LANG=de_DE.UTF-8 [synced ~/.pi/agent/paddock.env:3]\n"
            "LC_ALL=C [runtime the invoking shell]\n"
            "OPENAI_API_KEY=org-key [managed file /etc/paddock/pi.env:2]\n"
            "OPENAI_BASE_URL=https://audited.example [managed file /etc/paddock/pi.env:1]\n"
            "PI_TELEMETRY=0 [managed host.toml:9:1]\n"
            "TERM=xterm [runtime the invoking shell]\n"
            "USER_ONLY=u [synced ~/.pi/agent/paddock.env:4]\n");
  ASSERT_EQ(m.overridden.size(), 4u);
  EXPECT_EQ(m.overridden[0].value, "C.UTF-8");  // the shell's LANG, under the synced one
}

TEST(HostSettings, DeepMergeGolden) {
  const std::string synced = R"({"theme": "light", "model": {"provider": "openai", "id": "gpt-x", "opts": {"t": 1}},
                                 "packages": ["a", "b"], "telemetry": {"on": true}})";
  nlohmann::json managed = {{"theme", "dark"},
                            {"model", {{"provider", "anthropic"}, {"opts", {{"max", 5}}}}},
                            {"packages", {"c"}},
                            {"telemetry", false}};
  auto r = merge_settings_text(synced, "~/.pi/agent/settings.json", managed);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(*r, R"({
  "model": {
    "id": "gpt-x",
    "opts": {
      "max": 5,
      "t": 1
    },
    "provider": "anthropic"
  },
  "packages": [
    "c"
  ],
  "telemetry": false,
  "theme": "dark"
}
)");
  auto none = merge_settings_text("", "s.json", {{"theme", "dark"}});
  ASSERT_TRUE(none);
  EXPECT_EQ(*none, "{\n  \"theme\": \"dark\"\n}\n");
  auto bad = merge_settings_text("[1,2]", "s.json", managed);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "s.json: must hold a JSON object ({...})");
  bad = merge_settings_text("{", "s.json", managed);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "s.json");
}

class SyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-host-sync-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  void put(const std::string& rel, const std::string& text) {
    ASSERT_EQ(std::system(("mkdir -p \"$(dirname " + dir_ + "/" + rel + ")\"").c_str()), 0);
    std::ofstream(dir_ + "/" + rel) << text;
  }
  std::string get(const std::string& rel) {
    std::ifstream in(dir_ + "/" + rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string dir_;
};

TEST_F(SyncTest, ReadsFollowingLinksAndWritesWithoutFollowingThem) {
  put("src/settings.json", "{}");
  put("src/prompts/a.md", "A");
  put("store/models.json", "M");  // a home-manager style link into a store
  ASSERT_EQ(::symlink((dir_ + "/store/models.json").c_str(), (dir_ + "/src/models.json").c_str()), 0);
  ASSERT_EQ(::symlink("nowhere", (dir_ + "/src/dangling").c_str()), 0);
  ASSERT_EQ(::symlink(".", (dir_ + "/src/prompts/loop").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir_ + "/src/fifo").c_str(), 0600), 0);
  auto tree = read_tree(dir_ + "/src");
  ASSERT_TRUE(tree) << tree.error().describe();
  std::string names;
  for (const auto& f : *tree) names += f.rel + (f.dir ? "/ " : " ");
  EXPECT_EQ(names, "models.json prompts/ prompts/a.md settings.json ");
  auto back = parse_tree(serialize_tree(*tree));
  ASSERT_TRUE(back) << back.error().describe();
  ASSERT_EQ(back->size(), tree->size());

  // The agent planted a link where a synced file goes: it is replaced, not written through.
  put("home/.keep", "");
  put("victim", "untouched");
  ASSERT_EQ(std::system(("mkdir -p " + dir_ + "/home/.pi/agent").c_str()), 0);
  ASSERT_EQ(::symlink((dir_ + "/victim").c_str(), (dir_ + "/home/.pi/agent/settings.json").c_str()), 0);
  ASSERT_TRUE(write_tree(dir_ + "/home", ".pi/agent", *back));
  EXPECT_EQ(get("victim"), "untouched");
  EXPECT_EQ(get("home/.pi/agent/settings.json"), "{}");
  EXPECT_EQ(get("home/.pi/agent/models.json"), "M");
  EXPECT_EQ(get("home/.pi/agent/prompts/a.md"), "A");
  // A directory the agent replaced by a link is refused.
  ASSERT_EQ(std::system(("rm -rf " + dir_ + "/home/.pi/agent/prompts").c_str()), 0);
  ASSERT_EQ(::symlink(dir_.c_str(), (dir_ + "/home/.pi/agent/prompts").c_str()), 0);
  auto w = write_tree(dir_ + "/home", ".pi/agent", *back);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().describe().find("is a symlink"), std::string::npos) << w.error().describe();
}

TEST_F(SyncTest, MissingDirIsEmptyAndLimitsHold) {
  auto none = read_tree(dir_ + "/absent");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  put("src/big", std::string(2048, 'x'));
  SyncLimits lim;
  lim.max_bytes = 1024;
  auto r = read_tree(dir_ + "/src", lim);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().describe().find("more than 0 MiB"), std::string::npos);
}

TEST(SyncTransport, ForgedTreesAreRefused) {
  auto tree = [](std::vector<SyncedFile> f) { return parse_tree(serialize_tree(f)); };
  EXPECT_FALSE(tree({{"../escape", false, 0600, "x"}}));
  EXPECT_FALSE(tree({{"/etc/passwd", false, 0600, "x"}}));
  EXPECT_FALSE(tree({{"a/./b", false, 0600, "x"}}));
  EXPECT_FALSE(tree({{"a/b", false, 0600, "x"}}));  // its directory never listed
  EXPECT_TRUE(tree({{"a", true, 0700, ""}, {"a/b", false, 04755, "x"}}));
  EXPECT_EQ((*tree({{"f", false, 04755, "x"}}))[0].mode, 0755u);  // no setuid
  EXPECT_FALSE(parse_tree("garbage"));
  std::string s = serialize_tree({{"f", false, 0600, "data"}});
  EXPECT_FALSE(parse_tree(s.substr(0, s.size() - 1)));
}

TEST(HostRunnerArgs, OnlyTheFixedShape) {
  auto ok = parse_fixed_argv({"host", "runner", "--config", "/etc/paddock/host.toml", "pi", "--", "-p", "hi; rm -rf /"},
                             "runner");
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(ok->agent, "pi");
  EXPECT_EQ(ok->args, (std::vector<std::string>{"-p", "hi; rm -rf /"}));
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"host", "runner", "--config", "/etc/paddock/host.toml", "pi"},                 // no --
           {"host", "runner --config /etc/paddock/host.toml pi", "--"},                    // sudo's joined form
           {"host", "runner", "--config", "/etc/paddock/host.toml", "pi -- x", "--"},
           {"host", "runner", "--config", "/tmp/../etc/host.toml", "pi", "--"},            // not normal
           {"host", "runner", "--config", "host.toml", "pi", "--"},                        // relative
           {"host", "runner", "--config", "/etc/paddock/host.toml", "../pi", "--"},
           {"host", "runner", "--config=/etc/paddock/host.toml", "pi", "--", "x"},
           {"host", "runner", "--config", "/etc/paddock/h ost.toml", "pi", "--"},
           {"host", "wrap", "--config", "/etc/paddock/host.toml", "pi", "--"}}) {
    EXPECT_FALSE(parse_fixed_argv(bad, "runner")) << bad[1];
  }
}

TEST(HostRunnerCaller, SudosWordCheckedAgainstSudo) {
  FakeUsers db;
  db.user("root", 0, 0, "/root").user("alice", 1001, 1001, "/home/alice");
  CallerFacts f;
  f.ruid = f.euid = 0;
  f.sudo_uid = "1001";
  f.sudo_user = "alice";
  f.ppid = 4242;
  f.parent_exe = "/usr/bin/sudo";
  f.parent_exe_owner = 0;
  f.parent_ruid = 1001;
  auto who = identify_caller(f, db);
  ASSERT_TRUE(who) << who.error().describe();
  EXPECT_EQ(who->name, "alice");
  auto refused = [&](CallerFacts g) {
    auto r = identify_caller(g, db);
    return r ? std::string("accepted") : r.error().message;
  };
  CallerFacts g = f;
  g.ruid = g.euid = 1001;  // called directly by the user
  EXPECT_EQ(refused(g), "refused: the runner runs only as root, started by sudo from the agent's wrapper");
  g = f;
  g.sudo_uid.reset();
  EXPECT_EQ(refused(g), "refused: no valid SUDO_UID: the runner only runs when sudo starts it for a host user");
  g = f;
  g.sudo_uid = "1001 ";
  EXPECT_NE(refused(g), "accepted");
  g = f;
  g.sudo_uid = "0";
  EXPECT_EQ(refused(g), "refused: SUDO_UID is root's: root runs agents with `paddock run`, not through the wrapper");
  g = f;
  g.sudo_user = "bob";
  EXPECT_EQ(refused(g), "refused: SUDO_USER does not name the user of SUDO_UID 1001");
  g = f;
  g.parent_exe = "/bin/bash";  // root forging SUDO_UID by hand
  EXPECT_EQ(refused(g), "refused: the runner's parent is not sudo run by alice (parent 4242: /bin/bash)");
  g = f;
  g.parent_ruid = 1002;  // sudo, but run by someone else
  EXPECT_NE(refused(g), "accepted");
  g = f;
  g.parent_exe = "/home/alice/bin/sudo";
  g.parent_exe_owner = 1001;  // a "sudo" of the user's own
  EXPECT_NE(refused(g), "accepted");
}

}  // namespace
}  // namespace paddock::host
