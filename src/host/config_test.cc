#include "host/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "host/render.h"

namespace paddock::host {
namespace {

// "FILE:LINE:COL: message (hint)", as the CLI prints it.
std::string shown(const Error& e) {
  std::string s = e.describe();
  if (!e.hint.empty()) s += " (" + e.hint + ")";
  return s;
}

const char* const kExample = R"([agents.pi]
binary = "/usr/local/lib/pi/bin/pi"
command = "pi"
user = "pi-agent"
state_dir = "/var/lib/paddock/agents/pi"
config_source = ".pi/agent"
env_files = ["/etc/paddock/pi.env"]
[agents.pi.env]
PI_TELEMETRY = "0"
[agents.pi.settings]
theme = "dark"

[users.alice]
roots = ["~/src", "/srv/projects/alice"]
config_source = ".config/pi-agent"
)";

class HostConfigTest : public ::testing::Test {
 protected:
  HostConfigTest() {
    users_.user("root", 0, 0, "/root")
        .user("alice", 1001, 1001, "/home/alice")
        .user("bob", 1002, 1002, "/home/bob")
        .user("pi-agent", 998, 998, "/var/lib/paddock/agents/pi")
        .group("pi-agent", 998);
  }
  Result<HostConfig> parse(const std::string& text) { return parse_host_config(text, "host.toml", users_); }
  std::string error_of(const std::string& text) {
    auto r = parse(text);
    return r ? "ok" : shown(r.error());
  }
  // The example with one line replaced (or appended when FROM is empty).
  std::string with(const std::string& from, const std::string& to) {
    std::string t = kExample;
    if (from.empty()) return t + to;
    auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  }
  FakeUsers users_;
};

TEST_F(HostConfigTest, TheIssuesExampleParsesWithItsValues) {
  auto r = parse(kExample);
  ASSERT_TRUE(r) << shown(r.error());
  ASSERT_EQ(r->agents.size(), 1u);
  const AgentEntry& a = r->agents[0];
  EXPECT_EQ(a.name, "pi");
  EXPECT_EQ(a.binary, "/usr/local/lib/pi/bin/pi");
  EXPECT_EQ(a.command, "pi");
  EXPECT_EQ(a.user, "pi-agent");
  EXPECT_EQ(a.group, "pi-agent");
  EXPECT_EQ(a.state_dir, "/var/lib/paddock/agents/pi");
  EXPECT_EQ(a.config_source, ".pi/agent");
  ASSERT_EQ(a.env_files.size(), 1u);
  EXPECT_EQ(a.env_files[0].first, "/etc/paddock/pi.env");
  EXPECT_EQ(a.env_files[0].second, "host.toml:7:14");
  ASSERT_EQ(a.env.size(), 1u);
  EXPECT_EQ(a.env[0].name, "PI_TELEMETRY");
  EXPECT_EQ(a.env[0].value, "0");
  EXPECT_EQ(a.env[0].where, "host.toml:9:1");
  EXPECT_EQ(a.settings, nlohmann::json({{"theme", "dark"}}));
  EXPECT_EQ(a.users, std::vector<std::string>{"alice"});
  EXPECT_EQ(a.profile, "pi");  // the built-in profile named like the agent
  EXPECT_EQ(a.pass_env, default_pass_env());
  ASSERT_EQ(r->users.size(), 1u);
  EXPECT_EQ(r->users[0].config_source, ".config/pi-agent");
  ASSERT_EQ(r->users[0].roots.size(), 2u);
  EXPECT_EQ(r->users[0].roots[0].given, "~/src");
  EXPECT_EQ(r->users[0].roots[0].where, "host.toml:14:10");
  EXPECT_EQ(r->paddock, "/usr/local/bin/paddock");
  EXPECT_EQ(r->wrapper_dir, "/usr/local/bin");
  EXPECT_EQ(r->sudoers_dir, "/etc/sudoers.d");
}

TEST_F(HostConfigTest, Defaults) {
  auto r = parse("[agents.codex]\nbinary = \"/opt/codex/bin/codex\"\n[users.bob]\nroots = [\"~/work\"]\n");
  ASSERT_TRUE(r) << shown(r.error());
  const AgentEntry& a = r->agents[0];
  EXPECT_EQ(a.command, "codex");
  EXPECT_EQ(a.user, "codex-agent");
  EXPECT_EQ(a.group, "codex-agent");
  EXPECT_EQ(a.state_dir, "/var/lib/paddock/agents/codex");
  EXPECT_EQ(a.config_source, ".codex");
  EXPECT_EQ(a.settings_file, "settings.json");
  EXPECT_EQ(a.user_env_file, "paddock.env");
  EXPECT_TRUE(a.settings.empty());
  EXPECT_EQ(a.users, std::vector<std::string>{"bob"});
  EXPECT_EQ(a.profile, "codex");
  auto other = parse("[agents.mytool]\nbinary = \"/opt/mytool/mytool\"\n[users.bob]\nroots = [\"~/work\"]\n");
  ASSERT_TRUE(other) << shown(other.error());
  EXPECT_EQ(other->agents[0].profile, "default");
}

// Golden messages: what an administrator reads for each misconfiguration.
TEST_F(HostConfigTest, EmptyRoots) {
  EXPECT_EQ(error_of(with("roots = [\"~/src\", \"/srv/projects/alice\"]", "roots = []")),
            "host.toml:14:9: roots of user alice is empty: they could run agents nowhere (list at least one "
            "directory, e.g. roots = [\"~/src\"])");
  EXPECT_EQ(error_of(with("roots = [\"~/src\", \"/srv/projects/alice\"]\n", "")),
            "host.toml:13:8: user alice has no roots: list the directories they may run agents in (roots = "
            "[\"~/src\"])");
}

TEST_F(HostConfigTest, RelativeRoot) {
  EXPECT_EQ(error_of(with("\"~/src\"", "\"src\"")),
            "host.toml:14:10: root \"src\" is relative: a root is an absolute path or starts with ~/ (e.g. \"~/src\" "
            "or \"/srv/projects/alice\")");
  EXPECT_EQ(error_of(with("\"~/src\"", "\"~bob/src\"")),
            "host.toml:14:10: root \"~bob/src\": only \"~\" and \"~/...\" (the user's own home) are understood (write "
            "another user's directory as an absolute path)");
  EXPECT_EQ(error_of(with("\"~/src\"", "\"~/src/../..\"")),
            "host.toml:14:10: root \"~/src/../..\" is not in normal form (leave out '.', '..', '//' and a trailing "
            "'/')");
}

TEST_F(HostConfigTest, RootThatIsEverythingOrAWholeHome) {
  EXPECT_EQ(error_of(with("\"~/src\"", "\"/\"")),
            "host.toml:14:10: root \"/\" is the whole file system (if you mean it, write { path = \"/\", allow_broad = "
            "true })");
  EXPECT_EQ(error_of(with("\"~/src\"", "\"~\"")),
            "host.toml:14:10: root \"~\" is the user's whole home (/home/alice) (if you mean it, write { path = \"~\", "
            "allow_broad = true })");
  EXPECT_EQ(error_of(with("\"~/src\"", "\"/home/bob\"")),
            "host.toml:14:10: root \"/home/bob\" is bob's whole home (/home/bob) (if you mean it, write { path = "
            "\"/home/bob\", allow_broad = true })");
  EXPECT_EQ(error_of(with("\"~/src\"", "\"/home\"")),
            "host.toml:14:10: root \"/home\" contains the whole home of alice (/home/alice) (if you mean it, write { "
            "path = \"/home\", allow_broad = true })");
  // Named explicitly: accepted.
  auto r = parse(with("\"~/src\"", "{ path = \"~\", allow_broad = true }"));
  ASSERT_TRUE(r) << shown(r.error());
  EXPECT_TRUE(r->users[0].roots[0].broad);
  EXPECT_EQ(error_of(with("\"~/src\"", "{ path = \"~\", allow_broad = \"yes\" }")),
            "host.toml:14:38: allow_broad must be true or false (got a string)");
}

TEST_F(HostConfigTest, UserThatDoesNotExist) {
  EXPECT_EQ(error_of(with("[users.alice]", "[users.mallory]")),
            "host.toml:13:8: no user \"mallory\" on this system (no passwd entry) (create the user first, or remove "
            "[users.mallory])");
  EXPECT_EQ(error_of(with("[users.alice]", "[users.root]")),
            "host.toml:13:8: root cannot be a host user of an agent: root needs no wrapper");
  EXPECT_EQ(error_of(with("[users.alice]", "[users.pi-agent]")),
            "host.toml:13:8: the agent user pi-agent of pi cannot also be a host user (it would reach its own state)");
}

TEST_F(HostConfigTest, WrapperWithNoAllowedUsers) {
  EXPECT_EQ(error_of("[agents.pi]\nbinary = \"/usr/local/lib/pi/bin/pi\"\n"),
            "host.toml:1:9: agent pi has no allowed users: its wrapper would let nobody in (add a [users.NAME] table "
            "with the user's roots)");
  EXPECT_EQ(error_of(with("command = \"pi\"", "users = []")),
            "host.toml:3:9: users in [agents.pi] is empty: nobody could run pi (list who may, or leave users out to "
            "allow every [users.*])");
  EXPECT_EQ(error_of(with("command = \"pi\"", "users = [\"bob\"]")),
            "host.toml:3:10: users in [agents.pi] names \"bob\", who has no [users.bob] table (add [users.bob] with "
            "their roots)");
}

TEST_F(HostConfigTest, UnknownKeysAndTypes) {
  EXPECT_EQ(error_of(with("command = \"pi\"", "comand = \"pi\"")),
            "host.toml:3:1: unknown key \"comand\" in [agents.pi] (did you mean \"command\"?)");
  EXPECT_EQ(error_of(with("", "[user.bob]\nroots = [\"~/x\"]\n")), "host.toml:16:2: unknown table [user] (did you mean \"users\"?)");
  EXPECT_EQ(error_of(with("config_source = \".config/pi-agent\"", "config_sorce = \"x\"")),
            "host.toml:15:1: unknown key \"config_sorce\" in [users.alice] (did you mean \"config_source\"?)");
  EXPECT_EQ(error_of(with("PI_TELEMETRY = \"0\"", "PI_TELEMETRY = 0")),
            "host.toml:9:16: the value of PI_TELEMETRY in [agents.pi].env must be a string, got an integer (quote it: "
            "PI_TELEMETRY = \"...\")");
  EXPECT_EQ(error_of(with("binary = \"/usr/local/lib/pi/bin/pi\"", "binary = \"pi\"")),
            "host.toml:2:10: binary in [agents.pi] must be an absolute path in normal form, got \"pi\" (start it with / "
            "and leave out '.', '..', '//' and a trailing '/')");
  EXPECT_EQ(error_of(with("binary = \"/usr/local/lib/pi/bin/pi\"\n", "")),
            "host.toml:1:9: [agents.pi] has no binary: the path of the real agent program (binary = "
            "\"/usr/local/lib/pi/bin/pi\")");
  EXPECT_EQ(error_of(with("config_source = \".config/pi-agent\"", "config_source = \"/etc\"")),
            "host.toml:15:17: config_source in [users.alice] must be a relative path below the home, got \"/etc\" (e.g. "
            "\".pi/agent\": no leading '/', no '.', '..' or '//')");
  EXPECT_EQ(error_of("x = [\n"), "host.toml:1:7: Error while parsing array: encountered end-of-file");
  EXPECT_EQ(error_of(""), "host.toml:1:1: no [agents.NAME] table: there is nothing to run (add one, e.g. [agents.pi] "
                          "with binary = \"/usr/local/lib/pi/bin/pi\")");
}

TEST_F(HostConfigTest, WhatInstallWouldBreak) {
  EXPECT_EQ(error_of(with("binary = \"/usr/local/lib/pi/bin/pi\"", "binary = \"/usr/local/bin/pi\"")),
            "host.toml:2:10: the binary /usr/local/bin/pi is where the wrapper pi goes: the wrapper would replace the "
            "agent (install the agent elsewhere (e.g. /usr/local/lib/pi/bin/pi))");
  EXPECT_EQ(error_of(with("command = \"pi\"", "hide_dir = \"/usr/local\"")),
            "host.toml:3:12: hide_dir \"/usr/local\" is (or contains) the system directory /usr/local: making it 0750 "
            "would lock users out of it (install the agent in a directory of its own, e.g. /usr/local/lib/pi)");
  EXPECT_EQ(error_of(with("command = \"pi\"", "hide_dir = \"/opt/other\"")),
            "host.toml:3:12: hide_dir \"/opt/other\" does not contain the binary /usr/local/lib/pi/bin/pi");
  EXPECT_EQ(error_of(with("command = \"pi\"", "command = \"../pi\"")),
            "host.toml:3:11: command \"../pi\" is not usable as a file name in the wrapper directory (letters, digits "
            "and . _ + -, not starting with '.' or '-', and not \"paddock\")");
  EXPECT_EQ(error_of(with("", "[host]\npaddock = \"/opt/my paddock/paddock\"\n")),
            "host.toml:17:11: paddock in [host] has a character that cannot go into a sudoers rule or a script "
            "(letters, digits and / . _ + - only)");
  EXPECT_EQ(error_of(with("state_dir = \"/var/lib/paddock/agents/pi\"", "state_dir = \"/var/lib\"")),
            "host.toml:5:13: state_dir \"/var/lib\" must be a directory of its own (e.g. /var/lib/paddock/agents/pi)");
  EXPECT_EQ(error_of("[agents.p_i]\nbinary = \"/opt/y/y\"\n[agents.p-i]\nbinary = \"/opt/x/x\"\ncommand = \"x\"\n"
                     "[users.bob]\nroots = [\"~/src\"]\n"),
            "host.toml:1:9: agents p-i and p_i would share one sudoers alias ('-' and '_' are the same there)");
  EXPECT_EQ(error_of(with("command = \"pi\"", "profile = \"nope\"")).substr(0, 46),
            "host.toml:3:11: no built-in profile \"nope\" (av");
}

// The agent's state holds every host user's part: where a sandbox could see it, one user's agent
// would read another's sessions and logins (issue 25, class 12).
TEST_F(HostConfigTest, StateWhereASandboxSeesItIsRefused) {
  const std::string example = "state_dir = \"/var/lib/paddock/agents/pi\"";
  const std::string hint = " (e.g. /var/lib/paddock/agents/pi (the default), which no sandbox sees)";
  EXPECT_EQ(error_of(with(example, "state_dir = \"/opt/pi-state\"")),
            "host.toml:5:13: state_dir \"/opt/pi-state\" lies under /opt, which every sandbox can read: one host "
            "user's agent would read another's state" + hint);
  EXPECT_EQ(error_of(with(example, "state_dir = \"/usr/local/lib/pi/state\"")),
            "host.toml:5:13: state_dir \"/usr/local/lib/pi/state\" lies under /usr, which every sandbox can read: one "
            "host user's agent would read another's state" + hint);
  EXPECT_EQ(error_of(with(example, "state_dir = \"/home/alice/src/.pi-state\"")),
            "host.toml:5:13: state_dir \"/home/alice/src/.pi-state\" lies under the project root ~/src of alice "
            "(host.toml:14:10), which a run there can read: one host user's agent would read another's state" + hint);
  EXPECT_EQ(error_of(with(example, "state_dir = \"/srv/projects\"")),
            "host.toml:5:13: state_dir \"/srv/projects\" holds the project root /srv/projects/alice of alice "
            "(host.toml:14:19), which a run there can read: one host user's agent would read another's state" + hint);
  std::string hidden = with("binary = \"/usr/local/lib/pi/bin/pi\"", "binary = \"/srv/pi/bin/pi\"\nhide_dir = \"/srv/pi\"");
  hidden.replace(hidden.find(example), example.size(), "state_dir = \"/srv/pi/state\"");
  EXPECT_EQ(error_of(hidden), "host.toml:6:13: state_dir \"/srv/pi/state\" lies under /srv/pi, which every run of pi can "
                              "read (the agent's program): one host user's agent would read another's state" + hint);
  EXPECT_EQ(error_of(with(example, "state_dir = \"/var/lib/paddock/agents/pi\"")), "ok");
}

// As it lies on disk: a state_dir that resolves, through a symlink, into a system path.
TEST(HostStateDir, SeenThroughASymlinkOnDisk) {
  char tmpl[] = "/tmp/paddock-host-state-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(::symlink("/usr/share", (dir + "/state").c_str()), 0);
  AgentEntry a;
  a.name = "pi";
  a.state_dir = dir + "/state";
  HostConfig cfg;
  FakeUsers users;
  EXPECT_EQ(state_dir_seen_by(a, cfg, users), std::nullopt);  // as written: under /tmp
  auto seen = state_dir_seen_on_disk(a, cfg, users);
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(*seen, "resolves to /usr/share and lies under /usr, which every sandbox can read");
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST(HostConfigFile, MustBeRootsAndWritableByRootOnly) {
  char tmpl[] = "/tmp/paddock-host-config-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  const std::string file = dir + "/host.toml";
  std::ofstream(file) << kExample;
  FakeUsers users;
  users.user("alice", 1001, 1001, "/home/alice");
  if (::geteuid() == 0) {
    ASSERT_EQ(::chmod(file.c_str(), 0666), 0);
    auto r = load_host_config(file, users);
    ASSERT_FALSE(r);
    EXPECT_EQ(shown(r.error()), file + ": is writable by others (mode 0666): it decides what root does, so only root may "
                                       "write it (chown root:root " + file + " && chmod 0644 " + file + ")");
    ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
    ASSERT_EQ(::chown(file.c_str(), 1001, 0), 0);
    r = load_host_config(file, users);
    ASSERT_FALSE(r);
    EXPECT_NE(shown(r.error()).find("is owned by uid 1001, not root"), std::string::npos) << shown(r.error());
    ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
    r = load_host_config(file, users);
    ASSERT_FALSE(r);
    EXPECT_EQ(shown(r.error()), file + ": the directory " + dir +
                                    " is writable by others (mode 0777): whoever can write it can replace the file");
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    r = load_host_config(file, users);
    EXPECT_TRUE(r) << shown(r.error());
    // A symlink is followed, and both paths are checked.
    const std::string link = dir + "/link.toml";
    ASSERT_EQ(::symlink(file.c_str(), link.c_str()), 0);
    EXPECT_TRUE(load_host_config(link, users));
  } else {
    auto r = load_host_config(file, users);
    ASSERT_FALSE(r);
    EXPECT_NE(shown(r.error()).find("not root"), std::string::npos);
  }
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST(HostRender, SudoersRuleAndWrapper) {
  FakeUsers users;
  users.user("alice", 1001, 1001, "/home/alice").user("bob", 1002, 1002, "/home/bob");
  auto cfg = parse_host_config(std::string(kExample) + "[users.bob]\nroots = [\"/srv/projects/bob\"]\n", "host.toml", users);
  ASSERT_TRUE(cfg) << cfg.error().describe();
  EXPECT_EQ(sudoers_rule(*cfg, cfg->agents[0], "/etc/paddock/host.toml"),
            "# Generated by `paddock host install` from /etc/paddock/host.toml (agent pi); do not edit:\n"
            "# `paddock host uninstall` removes it. Exactly these users may run exactly the runner, as root,\n"
            "# without a password. Everything after the fixed \"--\" is the agent's argv: the runner re-checks\n"
            "# the caller, the config and the directory itself and never hands an argument to a shell.\n"
            "Cmnd_Alias PADDOCK_HOST_PI = /usr/local/bin/paddock host runner --config /etc/paddock/host.toml pi --, \\\n"
            "    /usr/local/bin/paddock host runner --config /etc/paddock/host.toml pi -- *\n"
            "Defaults!PADDOCK_HOST_PI env_reset, !setenv, env_keep = \"TERM COLORTERM LANG LANGUAGE LC_* TZ NO_COLOR\"\n"
            "alice, bob ALL = (root) NOPASSWD: PADDOCK_HOST_PI\n");
  EXPECT_EQ(sudoers_path(*cfg, cfg->agents[0]), "/etc/sudoers.d/paddock-pi");
  EXPECT_EQ(wrapper_path(*cfg, cfg->agents[0]), "/usr/local/bin/pi");
  EXPECT_EQ(wrapper_script(*cfg, cfg->agents[0], "/etc/paddock/host.toml"),
            "#!/bin/sh\n"
            "# pi: generated by `paddock host install` from /etc/paddock/host.toml (agent pi).\n"
            "# The agent runs as pi-agent in a paddock sandbox, in the current project only;\n"
            "# `paddock host explain` says which roots, config and env apply to you.\n"
            "exec /usr/local/bin/paddock host wrap --config /etc/paddock/host.toml pi -- \"$@\"\n");
}

}  // namespace
}  // namespace paddock::host
