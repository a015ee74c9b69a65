#include "paddock/policy.h"
#include "paddock/sandbox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "policy/fake_fs.h"
#include "policy/path_util.h"

namespace paddock {
namespace {

TEST(PolicyNames, AccessRoundTrips) {
  for (Access a : {Access::None, Access::Read, Access::Write, Access::ReadWrite}) {
    auto parsed = parse_access(to_string(a));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, a);
  }
  EXPECT_EQ(*parse_access("ro"), Access::Read);
  EXPECT_EQ(*parse_access("rw"), Access::ReadWrite);
  EXPECT_FALSE(parse_access("readwrite").ok());
  EXPECT_EQ(to_string(Access::ReadWrite), "read+write");
}

TEST(PolicyNames, OpAndNetMode) {
  for (Op o : {Op::Read, Op::Write, Op::Exec}) EXPECT_EQ(*parse_op(to_string(o)), o);
  EXPECT_FALSE(parse_op("delete").ok());
  EXPECT_EQ(to_string(NetMode::Off), "off");
  EXPECT_EQ(to_string(NetMode::Host), "host");
  EXPECT_EQ(to_string(NetMode::Filtered), "filtered");
}

TEST(PolicyNames, Grants) {
  EXPECT_TRUE(grants(Access::Read, Access::Read));
  EXPECT_FALSE(grants(Access::Read, Access::Write));
  EXPECT_FALSE(grants(Access::Write, Access::Read));
  EXPECT_TRUE(grants(Access::ReadWrite, Access::Write));
}

TEST(PathUtil, Normalize) {
  EXPECT_EQ(path::normalize("/a/./b/../c//d/"), "/a/c/d");
  EXPECT_EQ(path::normalize("/../.."), "/");
  EXPECT_EQ(path::normalize("/"), "/");
  EXPECT_TRUE(path::is_at_or_under("/a/b", "/a"));
  EXPECT_TRUE(path::is_at_or_under("/a", "/a"));
  EXPECT_FALSE(path::is_at_or_under("/ab", "/a"));
  EXPECT_TRUE(path::is_at_or_under("/x", "/"));
  EXPECT_FALSE(path::is_strictly_under("/a", "/a"));
  EXPECT_EQ(path::parent("/a/b"), "/a");
  EXPECT_EQ(path::parent("/a"), "/");
}

HostContext fake_ctx(std::shared_ptr<FakeFs> fs, std::string cwd = "/home/u/proj") {
  HostContext ctx;
  ctx.cwd = std::move(cwd);
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.uid = 1000;
  ctx.gid = 1000;
  ctx.fs = std::move(fs);
  return ctx;
}

std::shared_ptr<FakeFs> debian_tree() {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/usr/bin").dir("/usr/lib").dir("/usr/lib64").dir("/usr/sbin").dir("/etc/ssh").dir("/opt");
  fs->symlink("/bin", "usr/bin").symlink("/sbin", "usr/sbin").symlink("/lib", "usr/lib");
  fs->symlink("/lib64", "usr/lib64");
  fs->file("/etc/shadow").file("/etc/passwd").file("/etc/ssh/ssh_host_ed25519_key");
  fs->dir("/home/u/proj/src").dir("/home/u/proj/.git/hooks").file("/home/u/proj/.git/config");
  fs->dir("/home/u/.ssh").file("/home/u/.ssh/id_ed25519").file("/home/u/.bashrc");
  fs->dir("/home/u/docs").dir("/home/u/lib").symlink("/home/u/link", "docs");
  fs->dir("/tmp");
  return fs;
}

TEST(AbsolutePath, ExpandsTildeAndRelative) {
  auto ctx = fake_ctx(debian_tree());
  EXPECT_EQ(absolute_path("~", ctx), "/home/u");
  EXPECT_EQ(absolute_path("~/docs", ctx), "/home/u/docs");
  EXPECT_EQ(absolute_path("../lib", ctx), "/home/u/lib");
  EXPECT_EQ(absolute_path(".", ctx), "/home/u/proj");
  EXPECT_EQ(absolute_path("/etc/../usr", ctx), "/usr");
  EXPECT_EQ(absolute_path("~other", ctx), "/home/u/proj/~other");
}

TEST(Builder, DefaultPolicy) {
  auto fs = debian_tree();
  auto p = PolicyBuilder(fake_ctx(fs)).build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->cwd, "/home/u/proj");
  EXPECT_EQ(p->home, "/home/u");
  EXPECT_EQ(p->user, "u");
  EXPECT_EQ(p->network.mode, NetMode::Off);

  const PathRule* cwd = p->find_rule("/home/u/proj");
  ASSERT_NE(cwd, nullptr);
  EXPECT_EQ(cwd->access, Access::ReadWrite);
  EXPECT_EQ(cwd->origin.kind, Origin::Kind::Cwd);

  const PathRule* usr = p->find_rule("/usr");
  ASSERT_NE(usr, nullptr);
  EXPECT_EQ(usr->access, Access::Read);
  EXPECT_TRUE(usr->symlink_target.empty());
  const PathRule* bin = p->find_rule("/bin");
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(bin->symlink_target, "/usr/bin");
  EXPECT_EQ(p->find_rule("/lib32"), nullptr);
  EXPECT_EQ(p->find_rule("/nix/store"), nullptr);
  EXPECT_TRUE(std::any_of(p->notes.begin(), p->notes.end(),
                          [](const std::string& n) { return n.find("/nix/store") != std::string::npos; }));

  // HOME is not visible (fresh tmpfs), so ~/.ssh is not in the denied list; /etc/shadow is.
  auto denied = [&](const std::string& path) {
    return std::any_of(p->denied.begin(), p->denied.end(),
                       [&](const DeniedPath& d) { return d.path == path; });
  };
  EXPECT_FALSE(denied("/home/u/.ssh"));
  EXPECT_TRUE(denied("/etc/shadow"));
  EXPECT_TRUE(denied("/etc/gshadow"));  // absent: denied all the same
  EXPECT_TRUE(denied("/etc/ssh/ssh_host_ed25519_key"));
  EXPECT_FALSE(denied("/root"));

  auto prot = [&](const std::string& path) -> const ProtectedPath* {
    for (const auto& d : p->protected_paths) {
      if (d.path == path) return &d;
    }
    return nullptr;
  };
  ASSERT_NE(prot("/home/u/proj/.git/hooks"), nullptr);
  EXPECT_TRUE(prot("/home/u/proj/.git/hooks")->exists);
  ASSERT_NE(prot("/home/u/proj/.envrc"), nullptr);
  EXPECT_FALSE(prot("/home/u/proj/.envrc")->exists);
  EXPECT_EQ(prot("/home/u/.bashrc"), nullptr);  // HOME is not writable
  EXPECT_EQ(prot("/home/u/proj/.env"), nullptr);
}

TEST(Builder, FlagRulesResolveAndReplace) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  b.allow("~/docs", Access::Read, {Origin::Kind::Profile, "profile x"});
  b.allow("../lib", Access::ReadWrite, {Origin::Kind::Flag, "--allow ../lib"});
  b.allow("~/link", Access::Write, {Origin::Kind::Flag, "--write ~/link"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  const PathRule* docs = p->find_rule("/home/u/docs");
  ASSERT_NE(docs, nullptr);
  EXPECT_EQ(docs->access, Access::Write);  // the later rule (through the symlink) replaced it
  EXPECT_EQ(docs->given, "~/link");
  EXPECT_EQ(docs->origin.detail, "--write ~/link");
  ASSERT_NE(p->find_rule("/home/u/lib"), nullptr);
  EXPECT_EQ(p->find_rule("/home/u/lib")->access, Access::ReadWrite);
  // The typed name is a link to the rule's target inside the sandbox, granting nothing itself.
  const PathRule* link = p->find_rule("/home/u/link");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->symlink_target, "/home/u/docs");
}

TEST(Builder, MissingPathIsAnErrorWithTheFlag) {
  PolicyBuilder b(fake_ctx(debian_tree()));
  b.allow("~/nope", Access::Read, {Origin::Kind::Flag, "--read ~/nope"});
  auto p = b.build();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().describe(), "--read ~/nope: /home/u/nope: no such file or directory");
}

TEST(Builder, OptionalMissingPathIsANote) {
  PolicyBuilder b(fake_ctx(debian_tree()));
  b.allow_optional("~/.claude", Access::ReadWrite, {Origin::Kind::Profile, "profile claude"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->find_rule("/home/u/.claude"), nullptr);
  EXPECT_NE(std::find(p->notes.begin(), p->notes.end(),
                      "profile claude: /home/u/.claude does not exist; skipped"),
            p->notes.end());
}

TEST(Builder, RefusesHomeAndRootAsCwd) {
  auto fs = debian_tree();
  auto home = PolicyBuilder(fake_ctx(fs, "/home/u")).build();
  ASSERT_FALSE(home.ok());
  EXPECT_NE(home.error().message.find("whole home directory"), std::string::npos);
  EXPECT_NE(home.error().hint.find("--allow ~ explicitly if you really mean it"), std::string::npos);

  auto root = PolicyBuilder(fake_ctx(fs, "/")).build();
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.error().hint.find("--allow / explicitly"), std::string::npos);

  // Explicitly named: fine.
  PolicyBuilder named(fake_ctx(fs, "/home/u"));
  named.allow("~", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"});
  auto ok = named.build();
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_EQ(ok->find_rule("/home/u")->origin.kind, Origin::Kind::Flag);

  PolicyBuilder dot(fake_ctx(fs, "/home/u"));
  dot.allow(".", Access::Read, {Origin::Kind::Flag, "--read ."});
  EXPECT_TRUE(dot.build().ok());

  PolicyBuilder cwd_call(fake_ctx(fs, "/"));
  cwd_call.cwd_access(Access::Read);
  EXPECT_TRUE(cwd_call.build().ok());

  PolicyBuilder none(fake_ctx(fs, "/home/u"));
  none.cwd_access(Access::None);
  auto n = none.build();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->find_rule("/home/u"), nullptr);
}

TEST(Builder, RootWorksInItsOwnHome) {
  auto fs = debian_tree();
  fs->dir("/root/proj");
  HostContext ctx = fake_ctx(fs, "/root/proj");
  ctx.home = "/root";
  ctx.user = "root";
  ctx.uid = ctx.gid = 0;
  PolicyBuilder b(ctx);
  b.allow("/", Access::Read, {Origin::Kind::Flag, "--read /"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  for (const auto& d : p->denied) EXPECT_NE(d.path, "/root");
}

TEST(Builder, RefusesRootAsHome) {
  HostContext ctx = fake_ctx(debian_tree());
  ctx.home = "/";
  auto p = PolicyBuilder(ctx).build();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().describe(), "HOME: HOME is the root directory");
}

TEST(Builder, RefusesSensitiveCwdByDefault) {
  auto fs = debian_tree();
  auto p = PolicyBuilder(fake_ctx(fs, "/home/u/.ssh")).build();
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("sensitive"), std::string::npos);

  // Also through a symlink: ~/.gnupg -> /srv/gnupg, cwd /srv/gnupg.
  fs->dir("/srv/gnupg").symlink("/home/u/.gnupg", "/srv/gnupg");
  auto q = PolicyBuilder(fake_ctx(fs, "/srv/gnupg")).build();
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().describe(),
            "/srv/gnupg: the current directory is a sensitive path (GnuPG private keys and trust database)");

  PolicyBuilder explicit_cwd(fake_ctx(fs, "/srv/gnupg"));
  explicit_cwd.allow(".", Access::Read, {Origin::Kind::Flag, "--read ."});
  EXPECT_TRUE(explicit_cwd.build().ok());
}

TEST(Builder, AllowedHomeDeniesSecretsAndProtectsRcFiles) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  b.allow("~", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  auto denied = [&](const std::string& path) {
    return std::any_of(p->denied.begin(), p->denied.end(),
                       [&](const DeniedPath& d) { return d.path == path; });
  };
  EXPECT_TRUE(denied("/home/u/.ssh"));
  EXPECT_TRUE(denied("/home/u/.aws"));  // absent, still denied
  auto prot = [&](const std::string& path) {
    return std::any_of(p->protected_paths.begin(), p->protected_paths.end(),
                       [&](const ProtectedPath& d) { return d.path == path; });
  };
  EXPECT_TRUE(prot("/home/u/.bashrc"));
  EXPECT_TRUE(prot("/home/u/.local/bin"));
  EXPECT_TRUE(prot("/home/u/proj/.git/hooks"));
  EXPECT_FALSE(prot("/home/u/.ssh/rc"));  // hidden by the .ssh mask already
  // An absent sensitive path in a writable area cannot be masked: it is watched.
  auto aws = std::find_if(p->protected_paths.begin(), p->protected_paths.end(),
                          [](const ProtectedPath& d) { return d.path == "/home/u/.aws"; });
  ASSERT_NE(aws, p->protected_paths.end());
  EXPECT_FALSE(aws->exists);
  EXPECT_EQ(aws->reason, "AWS credentials and config; absent, watched");
  EXPECT_FALSE(prot("/home/u/.ssh"));  // exists: masked, not watched
}

TEST(Builder, ExactRuleLiftsDenialAndProtection) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  b.allow("~", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"});
  b.allow("~/.ssh", Access::Read, {Origin::Kind::Flag, "--read ~/.ssh"});
  b.allow(".git/hooks", Access::ReadWrite, {Origin::Kind::Flag, "--allow .git/hooks"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  for (const auto& d : p->denied) EXPECT_NE(d.path, "/home/u/.ssh");
  for (const auto& d : p->protected_paths) EXPECT_NE(d.path, "/home/u/proj/.git/hooks");
  bool config = std::any_of(p->protected_paths.begin(), p->protected_paths.end(),
                            [](const ProtectedPath& d) { return d.path == "/home/u/proj/.git/config"; });
  EXPECT_TRUE(config);
}

TEST(Builder, BroadRuleDoesNotReachIntoPrivateAreas) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  b.allow("/", Access::ReadWrite, {Origin::Kind::Flag, "--allow /"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  // HOME is still an empty tmpfs: nothing of the host's HOME to deny or protect there.
  for (const auto& d : p->denied) EXPECT_FALSE(d.path.rfind("/home/u/", 0) == 0) << d.path;
  for (const auto& d : p->protected_paths) {
    EXPECT_TRUE(d.path.rfind("/home/u/proj/", 0) == 0 || d.path.rfind("/home/u/", 0) != 0) << d.path;
  }
  bool shadow = std::any_of(p->denied.begin(), p->denied.end(),
                            [](const DeniedPath& d) { return d.path == "/etc/shadow"; });
  EXPECT_TRUE(shadow);
  bool root = std::any_of(p->denied.begin(), p->denied.end(),
                          [](const DeniedPath& d) { return d.path == "/root"; });
  EXPECT_TRUE(root);
}

TEST(Builder, ProtectedPathsAreResolved) {
  auto fs = debian_tree();
  fs->dir("/home/u/work/.git-real/hooks").symlink("/home/u/work/.git", ".git-real");
  fs->dir("/home/u/elsewhere/hooks").dir("/home/u/other").symlink("/home/u/other/.git", "../elsewhere");
  PolicyBuilder b(fake_ctx(fs, "/home/u/work"));
  b.allow("~/other", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~/other"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  auto prot = [&](const std::string& path) {
    return std::any_of(p->protected_paths.begin(), p->protected_paths.end(),
                       [&](const ProtectedPath& d) { return d.path == path; });
  };
  EXPECT_TRUE(prot("/home/u/work/.git-real/hooks"));  // inside the writable cwd
  EXPECT_FALSE(prot("/home/u/work/.git/hooks"));
  EXPECT_FALSE(prot("/home/u/elsewhere/hooks"));      // not visible: nothing to protect
}

TEST(Builder, ReadOnlyCwdHasNoProtectedPaths) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  b.cwd_access(Access::Read);
  auto p = b.build();
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->protected_paths.empty());
}

TEST(Builder, NestedWritableRuleStillProtectsHooks) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  b.cwd_access(Access::None);
  b.allow(".git", Access::ReadWrite, {Origin::Kind::Flag, "--allow .git"});
  auto p = b.build();
  ASSERT_TRUE(p.ok());
  bool hooks = std::any_of(p->protected_paths.begin(), p->protected_paths.end(),
                           [](const ProtectedPath& d) { return d.path == "/home/u/proj/.git/hooks"; });
  EXPECT_TRUE(hooks);
}

// The agents' project settings (declared in src/agents/NAME.cc, not in the generic list) are
// protected in a writable project like every other protected path, with their reasons.
TEST(Builder, AgentsProjectSettingsAreProtected) {
  auto fs = debian_tree();
  PolicyBuilder b(fake_ctx(fs));
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  auto reason = [&](const std::string& path) -> std::string {
    for (const ProtectedPath& d : p->protected_paths)
      if (d.path == path) return d.reason;
    return "";
  };
  EXPECT_NE(reason("/home/u/proj/.mcp.json").find("Claude Code"), std::string::npos);
  EXPECT_NE(reason("/home/u/proj/.claude/settings.json").find("hooks"), std::string::npos);
  EXPECT_NE(reason("/home/u/proj/.claude/hooks"), "");
  EXPECT_NE(reason("/home/u/proj/.codex").find("Codex"), std::string::npos);
  EXPECT_NE(reason("/home/u/proj/.pi"), "");
  EXPECT_NE(reason("/home/u/proj/.gemini"), "");
  EXPECT_NE(reason("/home/u/proj/.cursor"), "");  // not a registered agent: the generic list
  EXPECT_NE(reason("/home/u/proj/.vscode"), "");
}

TEST(Builder, FirstErrorWins) {
  PolicyBuilder b(fake_ctx(debian_tree()));
  b.pass_env("1BAD");
  b.fail(make_error("second"));
  b.allow("~/nope", Access::Read, {Origin::Kind::Flag, "--read ~/nope"});
  auto p = b.build();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "invalid environment variable name \"1BAD\"");
}

TEST(Builder, EnvNetworkAndLimitsAreCopied) {
  PolicyBuilder b(fake_ctx(debian_tree()));
  b.pass_env("GITHUB_TOKEN").pass_env("GITHUB_TOKEN").set_env("FOO", "1").set_env("FOO", "2");
  b.network(NetMode::Filtered).allow_domain("*.github.com").deny_domain("evil.example");
  b.allow_domain("10.0.0.0/8");
  b.mutable_limits().pids = 64;
  b.require_namespaces().profile_name("claude");
  auto p = b.build();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->env.pass, std::vector<std::string>{"GITHUB_TOKEN"});
  ASSERT_EQ(p->env.set.size(), 1u);
  EXPECT_EQ(p->env.set[0].second, "2");
  EXPECT_EQ(p->network.mode, NetMode::Filtered);
  EXPECT_EQ(p->network.allow_domains, (std::vector<std::string>{"*.github.com", "10.0.0.0/8"}));
  EXPECT_EQ(p->limits.pids, 64u);
  EXPECT_TRUE(p->require_namespaces);
  EXPECT_EQ(p->profile, "claude");
}

TEST(FakeFs, ResolvesLikeRealpath) {
  auto fs = debian_tree();
  EXPECT_EQ(*fs->canonical("/bin/../lib/"), "/usr/lib");
  EXPECT_FALSE(fs->canonical("/bin/../etc").ok());
  EXPECT_EQ(*fs->canonical("/home/u/link"), "/home/u/docs");
  EXPECT_FALSE(fs->canonical("/home/u/missing").ok());
  EXPECT_EQ(fs->canonical("/home/u/missing").error().sys_errno, ENOENT);
  EXPECT_EQ(fs->kind("/bin"), FsView::Kind::Other);
}

TEST(RealFs, CanonicalAndKind) {
  auto fs = real_fs();
  EXPECT_EQ(fs->kind("/"), FsView::Kind::Dir);
  EXPECT_EQ(fs->kind("/definitely/not/here"), FsView::Kind::Missing);
  EXPECT_EQ(*fs->canonical("/usr/../usr"), "/usr");
}

TEST(HostContext, FromProcess) {
  auto ctx = HostContext::from_process();
  ASSERT_TRUE(ctx.ok()) << ctx.error().describe();
  EXPECT_EQ(ctx->cwd[0], '/');
  EXPECT_EQ(ctx->home[0], '/');
  EXPECT_FALSE(ctx->user.empty());
  EXPECT_NE(ctx->fs, nullptr);
}

// $HOME pointing away from the passwd entry's home does not expose the real home's secrets.
TEST(Builder, PasswdHomeSecretsStayHiddenWhenHomeDiffers) {
  auto fs = debian_tree();
  fs->dir("/tmp/h");
  HostContext ctx = fake_ctx(fs);
  ctx.home = "/tmp/h";
  PolicyBuilder without(ctx);
  without.allow("/home/u", Access::Read, {Origin::Kind::Flag, "--read /home/u"});
  auto before = without.build();
  ASSERT_TRUE(before.ok()) << before.error().describe();
  auto denied = [](const Policy& p, const std::string& path) {
    return std::any_of(p.denied.begin(), p.denied.end(), [&](const DeniedPath& d) { return d.path == path; });
  };
  EXPECT_FALSE(denied(*before, "/home/u/.ssh"));  // what trusting $HOME alone gives

  ctx.passwd_home = "/home/u";
  PolicyBuilder b(ctx);
  b.allow("/home/u", Access::Read, {Origin::Kind::Flag, "--read /home/u"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_TRUE(denied(*p, "/home/u/.ssh"));
  EXPECT_TRUE(denied(*p, "/home/u/.aws"));
  EXPECT_EQ(p->home, "/tmp/h");

  // The default cwd inside the real home's secrets is refused as well.
  fs->dir("/home/u/.ssh/keys");
  HostContext in_ssh = ctx;
  in_ssh.cwd = "/home/u/.ssh/keys";
  EXPECT_FALSE(PolicyBuilder(in_ssh).build().ok());
}

// Reading HOME once instead of an lstat per entry gives exactly the same policy, symlinks out
// of HOME into visible areas included.
TEST(Builder, ListingBusyDirectoriesChangesNothing) {
  auto make_tree = [] {
    auto fs = debian_tree();
    fs->dir("/home/u/dotfiles/aws").dir("/home/u/dotfiles/gh").file("/home/u/.npmrc");
    fs->symlink("/home/u/.aws", "dotfiles/aws").symlink("/home/u/.config/gh", "/home/u/dotfiles/gh");
    fs->symlink("/home/u/.gitconfig", "dotfiles/gitconfig").file("/home/u/dotfiles/gitconfig");
    fs->dir("/home/u/.config/fish/conf.d").file("/home/u/.bash_history").dir("/home/u/.mozilla");
    return fs;
  };
  const std::vector<std::vector<std::pair<std::string, Access>>> cases = {
      {},
      {{"~", Access::ReadWrite}},
      {{"~", Access::Read}},
      {{"~/dotfiles", Access::ReadWrite}},
      {{"~/.config", Access::Write}},
      {{"~/.aws", Access::Read}, {"/home", Access::Read}},
  };
  for (const auto& rules : cases) {
    auto build = [&](bool listable, int& lookups) {
      auto fs = make_tree();
      fs->listable = listable;
      PolicyBuilder b(fake_ctx(fs, "/home/u/dotfiles"));
      for (const auto& [path, access] : rules) b.allow(path, access, {Origin::Kind::Flag, "--x " + path});
      auto p = b.build();
      lookups = fs->kind_calls;
      return p;
    };
    int listed_lookups = 0, plain_lookups = 0;
    auto listed = build(true, listed_lookups);
    auto plain = build(false, plain_lookups);
    ASSERT_EQ(listed.ok(), plain.ok());
    if (!plain.ok()) {
      EXPECT_EQ(listed.error().describe(), plain.error().describe());
      continue;
    }
    EXPECT_EQ(policy_to_json(*listed), policy_to_json(*plain)) << rules.size();
    EXPECT_LT(listed_lookups, plain_lookups);
  }
  // And the symlinked secrets are found either way.
  auto fs = make_tree();
  PolicyBuilder b(fake_ctx(fs, "/home/u/dotfiles"));
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  auto denied = [&](const std::string& path) {
    return std::any_of(p->denied.begin(), p->denied.end(), [&](const DeniedPath& d) { return d.path == path; });
  };
  EXPECT_TRUE(denied("/home/u/dotfiles/aws"));
  EXPECT_TRUE(denied("/home/u/dotfiles/gh"));
}

}  // namespace
}  // namespace paddock
