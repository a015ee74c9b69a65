// Kernel tests of the CLI around run: the policy readable inside, `paddock why` (inside and out),
// `paddock doctor`, and profiles (user profiles, extends, errors with positions).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "helpers/test_util.h"

namespace ktest {
namespace {

using nlohmann::json;

TEST(CorePolicy, ReadableInsideAndWhySelf) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string bindir = paddock_bin().substr(0, paddock_bin().rfind('/'));
  auto p = w.sh("cat \"$PADDOCK_POLICY\"");
  ASSERT_EQ(p.code, 0) << describe(p);
  auto j = json::parse(p.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << describe(p);
  EXPECT_TRUE(contains(p.out, w.project)) << describe(p);

  auto denied = w.sh(paddock_bin() + " why --self --path " + w.ssh_key + " --op read", {"--allow", "~", "--read", bindir});
  EXPECT_EQ(denied.code, 1) << describe(denied);
  EXPECT_TRUE(contains(denied.out, "not allowed")) << describe(denied);

  auto allowed = w.sh(paddock_bin() + " why --self --json --path " + w.project + "/file --op write", {"--read", bindir});
  EXPECT_EQ(allowed.code, 0) << describe(allowed);
  auto aj = json::parse(allowed.out, nullptr, false);
  ASSERT_FALSE(aj.is_discarded()) << describe(allowed);
  EXPECT_EQ(aj.value("allowed", false), true) << describe(allowed);

  auto sys = w.sh(paddock_bin() + " why --self --json --path /etc/passwd --op write", {"--read", bindir});
  EXPECT_EQ(sys.code, 1) << describe(sys);
  auto sj = json::parse(sys.out, nullptr, false);
  ASSERT_FALSE(sj.is_discarded()) << describe(sys);
  EXPECT_EQ(sj.value("allowed", true), false);
}

TEST(CoreWhy, FromOutsideTextAndJson) {
  KTEST_REQUIRE_BINARIES();
  World w;
  // Outside every rule and every private area (a /tmp path would be the private /tmp).
  const std::string elsewhere_path = exists("/var/log") ? "/var/log" : "/srv";
  // Allowed: the project.
  auto a = w.paddock({"why", "--path", w.project + "/src/main.c", "--op", "write"});
  EXPECT_EQ(a.code, 0) << describe(a);
  auto aj = w.paddock({"why", "--json", "--path", w.project + "/src/main.c", "--op", "write"});
  EXPECT_EQ(aj.code, 0) << describe(aj);
  auto ajs = json::parse(aj.out, nullptr, false);
  ASSERT_FALSE(ajs.is_discarded()) << describe(aj);
  EXPECT_EQ(ajs["version"], "paddock.why/1");
  EXPECT_EQ(ajs["allowed"], true);
  EXPECT_EQ(ajs["kind"], "rule");

  // Denied: not visible, with a suggestion.
  auto d = w.paddock({"why", "--path", elsewhere_path, "--op", "read"});
  EXPECT_EQ(d.code, 1) << describe(d);
  EXPECT_TRUE(contains(d.out, "not allowed")) << describe(d);
  EXPECT_TRUE(contains(d.out, "--read")) << describe(d);
  auto dj = json::parse(w.paddock({"why", "--json", "--path", elsewhere_path, "--op", "read"}).out, nullptr, false);
  ASSERT_FALSE(dj.is_discarded());
  EXPECT_EQ(dj["allowed"], false);
  EXPECT_EQ(dj["kind"], "not-visible");

  // Sensitive inside an allowed parent.
  auto s = w.paddock({"why", "--allow", "~", "--path", w.ssh_key, "--op", "read"});
  EXPECT_EQ(s.code, 1) << describe(s);
  EXPECT_TRUE(contains(s.out, "sensitive")) << describe(s);
  auto sj = json::parse(w.paddock({"why", "--json", "--allow", "~", "--path", w.ssh_key, "--op", "read"}).out, nullptr,
                        false);
  ASSERT_FALSE(sj.is_discarded());
  EXPECT_EQ(sj["kind"], "denied");
  EXPECT_EQ(sj["rule_path"], w.home + "/.ssh");

  // Protected (a git hook in the project) for writes.
  write_file(w.project + "/.git/hooks/pre-commit", "#!/bin/sh\n", 0755);
  auto pj_run = w.paddock({"why", "--json", "--path", w.project + "/.git/hooks/pre-commit", "--op", "write"});
  EXPECT_EQ(pj_run.code, 1) << describe(pj_run);
  auto pj = json::parse(pj_run.out, nullptr, false);
  ASSERT_FALSE(pj.is_discarded()) << describe(pj_run);
  EXPECT_EQ(pj["kind"], "protected");
  // ...and an explicit rule lifts it.
  auto lifted = w.paddock({"why", "--allow", ".git/hooks", "--path", w.project + "/.git/hooks/pre-commit", "--op", "write"});
  EXPECT_EQ(lifted.code, 0) << describe(lifted);
}

TEST(CoreDoctor, TextAndJson) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto t = w.paddock({"doctor"});
  EXPECT_EQ(t.code, 0) << describe(t);
  EXPECT_TRUE(contains(t.out, "user namespaces")) << describe(t);
  EXPECT_TRUE(contains(t.out, "landlock")) << describe(t);
  EXPECT_TRUE(contains(t.out, "paddock run` will use")) << describe(t);
  auto j = w.paddock({"doctor", "--json"});
  EXPECT_EQ(j.code, 0) << describe(j);
  auto doc = json::parse(j.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << describe(j);
  EXPECT_TRUE(doc.is_object());
  // The JSON agrees with the kernel as the test sees it.
  if (doc.contains("landlock_abi")) {
    EXPECT_EQ(doc["landlock_abi"].get<int>(), landlock_abi()) << j.out;
  }
  // How --memory, --pids and --cpu would be enforced for this user, and the text says the same.
  EXPECT_TRUE(contains(t.out, "resource limits:")) << describe(t);
  ASSERT_TRUE(doc.contains("limits")) << j.out;
  bool weaker = false;
  for (const char* name : {"memory", "pids", "cpu"}) {
    ASSERT_TRUE(doc["limits"].contains(name)) << name << "\n" << j.out;
    const std::string by = doc["limits"][name]["enforced_by"].get<std::string>();
    EXPECT_FALSE(by.empty()) << name;
    weaker = weaker || doc["limits"][name]["weaker"].get<bool>() || by == "not enforced";
  }
  EXPECT_EQ(contains(t.out, "degraded: no writable cgroup"), weaker) << describe(t);
  // Whether --allow-domain can work here, and `paddock run` agrees.
  ASSERT_TRUE(doc.contains("domain_allowlist")) << j.out;
  const bool allowlist = doc["domain_allowlist"].get<bool>();
  EXPECT_EQ(allowlist, user_namespaces_work()) << j.out;
  EXPECT_TRUE(contains(t.out, allowlist ? "domain allowlist:  yes" : "domain allowlist:  no")) << describe(t);
  auto run = w.paddock({"run", "--allow-domain", "example.test", "--", "true"});
  EXPECT_EQ(run.code == 0, allowlist) << describe(run);

  // With the fallback forced, doctor says what run then does: no namespaces, no allowlist.
  auto o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  auto forced = w.paddock({"doctor"}, o);
  EXPECT_TRUE(contains(forced.out, "disabled by PADDOCK_DANGER_DISABLE_NAMESPACES=1")) << describe(forced);
  EXPECT_TRUE(contains(forced.out, "domain allowlist:  no")) << describe(forced);
  EXPECT_TRUE(contains(forced.out, "degraded: no namespaces")) << describe(forced);
  auto refused = w.paddock({"run", "--allow-domain", "example.test", "--", "true"}, o);
  EXPECT_NE(refused.code, 0) << describe(refused);
  EXPECT_TRUE(contains(refused.err, "a domain allowlist needs user namespaces")) << describe(refused);
}

TEST(CoreProfile, UserProfileAndExtends) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/docs/d.txt", "profile docs");
  write_file(w.home + "/out/.keep", "");
  write_file(w.home + "/.config/paddock/profiles/base.toml", "[filesystem]\nread = [\"~/docs\"]\n");
  write_file(w.home + "/.config/paddock/profiles/x.toml",
             "extends = \"base\"\n[filesystem]\nallow = [\"~/out\"]\n[env]\nset = { FROM_PROFILE = \"yes\" }\n");
  auto r = w.probe_run({"--profile", "x"}, {"read", w.home + "/docs/d.txt"});
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "profile docs")) << describe(r);
  auto wr = w.probe_run({"--profile", "x"}, {"write", w.home + "/out/o.txt", "out"});
  EXPECT_EQ(wr.code, 0) << describe(wr);
  EXPECT_EQ(read_file(w.home + "/out/o.txt"), "out");
  auto env = w.probe_run({"--profile", "x"}, {"env"});
  EXPECT_TRUE(contains(env.out, "FROM_PROFILE=yes")) << describe(env);
  // Without the profile: not visible.
  auto no = w.probe_run({"read", w.home + "/docs/d.txt"});
  EXPECT_EQ(no.code, 1) << describe(no);
  // A flag overrides the profile's rule for the same path.
  auto ro = w.probe_run({"--profile", "x", "--read", "~/out"}, {"write", w.home + "/out/o2.txt"});
  EXPECT_EQ(ro.code, 1) << describe(ro);
}

TEST(CoreProfile, BadKeyPositionAndNothingRun) {
  KTEST_REQUIRE_BINARIES();
  World w;
  std::string file = w.home + "/.config/paddock/profiles/bad.toml";
  write_file(file, "[filesystem]\nread = [\"~\"]\nalow = [\"~/x\"]\n");
  auto p = w.paddock({"run", "--profile", "bad", "--", w.probe, "write", w.project + "/ran"});
  EXPECT_EQ(p.code, 2) << describe(p);
  EXPECT_TRUE(contains(p.err, "bad.toml:3:1")) << describe(p);
  EXPECT_TRUE(contains(p.err, "allow")) << describe(p);  // the did-you-mean hint
  EXPECT_FALSE(exists(w.project + "/ran"));
}

// A profile's network allowlist and --allow-net are refused together, as --allow-domain and
// --allow-net are: neither silently wins (issue 13, bug 5). A profile that says mode = "on" is the
// explicit way, and --allow-domain adds to the list.
TEST(CoreProfile, AllowNetOverAProfileAllowlistIsRefusedNotSilent) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.paddock({"run", "--profile", "pi", "--allow-net", "--", w.probe, "write", w.project + "/ran"});
  EXPECT_EQ(p.code, 2) << describe(p);
  EXPECT_TRUE(contains(p.err, "profile pi narrows the network to a list")) << describe(p);
  EXPECT_TRUE(contains(p.err, "mode = \"on\"")) << describe(p);
  EXPECT_FALSE(exists(w.project + "/ran"));
  auto why = w.paddock({"why", "--profile", "pi", "--allow-net", "--host", "api.openai.com"});
  EXPECT_EQ(why.code, 2) << describe(why);

  write_file(w.home + "/.config/paddock/profiles/pinet.toml", "extends = \"pi\"\n[network]\nmode = \"on\"\n");
  auto on = w.paddock({"why", "--profile", "pinet", "--host", "127.0.0.1:18080"});
  EXPECT_EQ(on.code, 0) << describe(on);
  auto added = w.paddock({"why", "--profile", "pi", "--allow-domain", "127.0.0.1:18080", "--host", "127.0.0.1:18080"});
  EXPECT_EQ(added.code, 0) << describe(added);
  EXPECT_TRUE(contains(added.out, "allowed")) << describe(added);
}

// `paddock run -- pi` picks the pi profile and says so in one line; --profile default opts out;
// a command only named like an agent (pi-tool) does not pick it (issue 13).
TEST(CoreProfile, AKnownAgentCommandPicksItsProfile) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (const char* name : {"pi", "pi-tool"}) {
    write_file(w.project + "/bin/" + name, "#!/bin/sh\ntr , '\\n' < \"$PADDOCK_POLICY\" | grep '\"profile\"'\n", 0755);
  }
  auto picked = w.paddock({"run", "--", w.project + "/bin/pi"});
  ASSERT_EQ(picked.code, 0) << describe(picked);
  EXPECT_TRUE(contains(picked.out, "\"profile\": \"pi\"")) << describe(picked);
  EXPECT_TRUE(contains(picked.err, "[paddock] profile pi, picked for the command")) << describe(picked);
  auto opted_out = w.paddock({"run", "--profile", "default", "--", w.project + "/bin/pi"});
  ASSERT_EQ(opted_out.code, 0) << describe(opted_out);
  EXPECT_TRUE(contains(opted_out.out, "\"profile\": \"default\"")) << describe(opted_out);
  EXPECT_FALSE(contains(opted_out.err, "picked for the command")) << describe(opted_out);
  auto other = w.paddock({"run", "--", w.project + "/bin/pi-tool"});
  ASSERT_EQ(other.code, 0) << describe(other);
  EXPECT_TRUE(contains(other.out, "\"profile\": \"default\"")) << describe(other);
}

// The codex profile tells Codex that paddock is its sandbox: its own arguments right after the
// name (so the user's own, after them, win), said in one line; a sandbox the user picks that
// cannot start inside is warned about before and after the run (issue 13).
TEST(CoreProfile, CodexIsToldPaddockIsItsSandbox) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/bin/codex", "#!/bin/sh\nfor a in \"$@\"; do echo \"ARG:$a\"; done\n", 0755);
  auto r = w.paddock({"run", "--", w.project + "/bin/codex", "exec", "hi"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "ARG:-c\nARG:sandbox_mode=\"danger-full-access\"\n")) << describe(r);
  EXPECT_TRUE(contains(r.out, "ARG:features.plugins=false\n")) << describe(r);
  EXPECT_TRUE(contains(r.out, "ARG:exec\nARG:hi\n")) << describe(r);
  EXPECT_LT(r.out.find("sandbox_mode"), r.out.find("ARG:exec")) << describe(r);
  EXPECT_TRUE(contains(r.err, "[paddock] codex: added -c sandbox_mode=\"danger-full-access\"")) << describe(r);
  EXPECT_FALSE(contains(r.err, "warning: codex")) << describe(r);

  auto own = w.paddock({"run", "--", w.project + "/bin/codex", "exec", "-s", "workspace-write", "hi"});
  ASSERT_EQ(own.code, 0) << describe(own);
  EXPECT_TRUE(contains(own.out, "ARG:-s\nARG:workspace-write\nARG:hi\n")) << describe(own);
  std::string warning = "[paddock] warning: codex -s workspace-write: Codex's own sandbox (bubblewrap) cannot start";
  auto first = own.err.find(warning);
  ASSERT_NE(first, std::string::npos) << describe(own);
  EXPECT_NE(own.err.find(warning, first + 1), std::string::npos) << "said again after the run: " << describe(own);

  // Another command under the codex profile is left as typed.
  auto other = w.paddock({"run", "--profile", "codex", "--", "/bin/echo", "plain"});
  ASSERT_EQ(other.code, 0) << describe(other);
  EXPECT_EQ(other.out, "plain\n") << describe(other);
  EXPECT_FALSE(contains(other.err, "added -c")) << describe(other);
}

// A launcher installed the npm way (~/.npm-global/bin/tool -> ../lib/node_modules/tool/bin/tool.sh)
// works with the flags the warning suggests: the typed name exists inside and the script finds
// its package (issue 13, bug 4). With namespaces and in the fallback.
TEST(CoreProfile, SymlinkedLauncherWorksWithTheSuggestedFlags) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string pkg = w.home + "/.npm-global/lib/node_modules/tool";
  const std::string link = w.home + "/.npm-global/bin/tool";
  write_file(pkg + "/package.json", "{\"name\": \"tool\"}\n");
  write_file(pkg + "/bin/tool.sh", "#!/bin/sh\ncat \"$(dirname \"$(readlink -f \"$0\")\")/../package.json\"\n", 0755);
  make_dirs(w.home + "/.npm-global/bin");
  ASSERT_EQ(::symlink("../lib/node_modules/tool/bin/tool.sh", link.c_str()), 0);
  auto hidden = w.paddock({"run", "--", link});
  EXPECT_NE(hidden.code, 0) << describe(hidden);
  EXPECT_TRUE(contains(hidden.err, "grant it with --read " + link + " --read " + pkg)) << describe(hidden);
  for (bool fallback : {false, true}) {
    RunOpts o = w.opts();
    if (fallback) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    auto ok = w.paddock({"run", "--read", link, "--read", pkg, "--", link}, o);
    EXPECT_EQ(ok.code, 0) << (fallback ? "fallback: " : "namespaces: ") << describe(ok);
    EXPECT_TRUE(contains(ok.out, "\"name\": \"tool\"")) << describe(ok);
  }
}

// A fresh HOME has no ~/.gitconfig: the user's git identity passes (user.name and user.email, as
// GIT_AUTHOR_* and GIT_COMMITTER_*), and nothing else of the file — a credential helper and an
// alias beside them are not there; --env wins over it (issue 30 item 6).
TEST(CoreGit, IdentityPassesAndNothingElseOfTheGitconfig) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/.gitconfig",
             "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[credential]\n\thelper = store\n"
             "[alias]\n\tst = status\n");
  const std::string script =
      "git var GIT_AUTHOR_IDENT; git var GIT_COMMITTER_IDENT; git config --get credential.helper; echo helper=$?; "
      "git config --get alias.st; echo alias=$?";
  auto p = w.sh(script);
  ASSERT_EQ(p.code, 0) << describe(p);
  const std::string ident = "Ada Lovelace <ada@example.com> ";
  ASSERT_NE(p.out.find(ident), std::string::npos) << describe(p);
  EXPECT_NE(p.out.find(ident, p.out.find(ident) + 1), std::string::npos) << "committer too: " << describe(p);
  EXPECT_TRUE(contains(p.out, "helper=1\n")) << describe(p);
  EXPECT_TRUE(contains(p.out, "alias=1\n")) << describe(p);
  auto own = w.sh("git var GIT_AUTHOR_IDENT", {"--env", "GIT_AUTHOR_NAME=Someone Else"});
  ASSERT_EQ(own.code, 0) << describe(own);
  EXPECT_TRUE(contains(own.out, "Someone Else <ada@example.com> ")) << describe(own);
}

// Started from a repository's subdirectory, paddock says so and offers the top level, found as git
// finds it (a `.git` file with gitdir: included); --allow TOP makes git work inside. And
// `git config user.name x` on the held .git/config is explained in the footer (issue 30 item 6).
TEST(CoreGit, AnEnclosingRepositoryIsNamedAndHeldFilesExplained) {
  KTEST_REQUIRE_BINARIES();
  World w;
  // The repository's git directory elsewhere, reached through a `.git` file: a shape-guessing
  // search for a `.git` directory would miss it.
  auto init = run({"/usr/bin/git", "init", "-q", "--separate-git-dir", w.home + "/gitdir", w.project});
  ASSERT_EQ(init.code, 0) << describe(init);
  make_dirs(w.project + "/sub");
  RunOpts o = w.opts();
  o.cwd = w.project + "/sub";
  auto p = w.paddock({"run", "--", "/bin/true"}, o);
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.err, "[paddock] the project " + w.project + "/sub lies inside the git repository " + w.project +
                                  ", which the sandbox does not see")) << describe(p);
  EXPECT_TRUE(contains(p.err, "--allow " + w.project)) << describe(p);
  auto at_top = w.paddock({"run", "--", "/bin/true"});
  EXPECT_FALSE(contains(at_top.err, "lies inside the git repository")) << describe(at_top);

  World w2;
  auto init2 = run({"/usr/bin/git", "init", "-q", w2.project});
  ASSERT_EQ(init2.code, 0) << describe(init2);
  auto held = w2.paddock({"run", "--", "git", "config", "user.name", "x"});
  EXPECT_NE(held.code, 0) << describe(held);
  EXPECT_TRUE(contains(held.err, "Device or resource busy")) << "git's own error: " << describe(held);
  EXPECT_TRUE(contains(held.err, "Held read-only (the host runs them later): ")) << describe(held);
  EXPECT_TRUE(contains(held.err, "replacing it (git config, an editor's save) with \"Device or resource busy\""))
      << describe(held);
}

// `paddock run -- claude` with Claude Code not installed leaves nothing on the host (no
// ~/.claude, no ~/.claude.json) and says why; installed (a launcher on PATH), its state is made as
// before (issue 30 item 9a).
TEST(CoreProfile, AgentStateIsMadeOnlyWhenTheAgentIsInstalled) {
  KTEST_REQUIRE_BINARIES();
  World w;
  RunOpts o = w.opts();
  o.env["PATH"] = "/usr/bin:/bin";
  auto missing = w.paddock({"run", "--", "claude"}, o);
  EXPECT_EQ(missing.code, 127) << describe(missing);
  EXPECT_TRUE(contains(missing.err, "[paddock] claude is not on PATH: its state in HOME is not created")) << describe(missing);
  EXPECT_FALSE(exists(w.home + "/.claude"));
  EXPECT_FALSE(exists(w.home + "/.claude.json"));

  write_file(w.project + "/bin/claude", "#!/bin/sh\necho started\n", 0755);
  o.env["PATH"] = w.project + "/bin:/usr/bin:/bin";
  auto installed = w.paddock({"run", "--", "claude"}, o);
  EXPECT_EQ(installed.code, 0) << describe(installed);
  EXPECT_EQ(installed.out, "started\n") << describe(installed);
  EXPECT_FALSE(contains(installed.err, "not on PATH")) << describe(installed);
  EXPECT_TRUE(exists(w.home + "/.claude/plugins"));
  EXPECT_EQ(read_file(w.home + "/.claude.json"), "{}");
}

// An agent's state directory is created before its first run, so a login made inside persists
// (issue 13); a symlink planted where it would be is refused, never followed.
TEST(CoreProfile, AgentStateDirectoryIsCreatedAndKept) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto first = w.paddock({"run", "--profile", "codex", "--", "/bin/sh", "-c", "echo token > ~/.codex/auth.json"});
  ASSERT_EQ(first.code, 0) << describe(first);
  EXPECT_TRUE(contains(first.err, "[paddock] created " + w.home + "/.codex")) << describe(first);
  EXPECT_EQ(read_file(w.home + "/.codex/auth.json"), "token\n");
  struct stat st {};
  ASSERT_EQ(::stat((w.home + "/.codex").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto second = w.paddock({"run", "--profile", "codex", "--", "/bin/cat", w.home + "/.codex/auth.json"});
  ASSERT_EQ(second.code, 0) << describe(second);
  EXPECT_EQ(second.out, "token\n");
  EXPECT_FALSE(contains(second.err, "created")) << describe(second);

  World w2;
  TempDir elsewhere;
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), (w2.home + "/.claude").c_str()), 0);
  write_file(w2.home + "/.config/paddock/profiles/c.toml", "[filesystem]\ncreate = [\"~/.claude/sub\"]\n");
  auto planted = w2.paddock({"run", "--profile", "c", "--", "/bin/true"});
  EXPECT_EQ(planted.code, 2) << describe(planted);
  EXPECT_TRUE(contains(planted.err, "c.toml:2:")) << describe(planted);
  EXPECT_FALSE(exists(elsewhere.path() + "/sub"));
}

}  // namespace
}  // namespace ktest

namespace ktest {
namespace {

// Project writes have no space cap (issue 12, "Also"): doctor says so with the reason, in text and
// JSON, and points at the administrator's way (docs/limits.md). Also true in the fallback.
TEST(CoreDoctor, SaysProjectWritesAreNotCapped) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (bool fallback : {false, true}) {
    auto o = w.opts();
    if (fallback) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    auto t = w.paddock({"doctor"}, o);
    EXPECT_EQ(t.code, 0) << describe(t);
    EXPECT_TRUE(contains(t.out, "project writes:    not capped — ")) << describe(t);
    EXPECT_TRUE(contains(t.out, "project quotas")) << describe(t);
    auto j = w.paddock({"doctor", "--json"}, o);
    auto doc = nlohmann::json::parse(j.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << describe(j);
    ASSERT_TRUE(doc.contains("project_write_cap")) << j.out;
    EXPECT_EQ(doc["project_write_cap"]["capped"], false) << j.out;
    EXPECT_TRUE(contains(doc["project_write_cap"]["reason"].get<std::string>(), "docs/limits.md")) << j.out;
  }
}

}  // namespace
}  // namespace ktest
