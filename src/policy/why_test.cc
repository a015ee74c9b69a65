#include "paddock/why.h"

#include <gtest/gtest.h>

#include <memory>

#include "policy/fake_fs.h"

namespace paddock {
namespace {

std::shared_ptr<FakeFs> tree() {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/usr/bin").dir("/usr/lib").dir("/etc").file("/etc/passwd").file("/etc/shadow");
  fs->file("/usr/bin/ls").symlink("/bin", "usr/bin").dir("/sys/kernel").file("/dev/sda");
  fs->dir("/home/u/proj/src").file("/home/u/proj/src/main.c").dir("/home/u/proj/.git/hooks");
  fs->file("/home/u/proj/.git/config").file("/home/u/proj/.envrc");
  fs->dir("/home/u/.ssh").file("/home/u/.ssh/id_ed25519").file("/home/u/.ssh/known_hosts");
  fs->dir("/home/u/docs").file("/home/u/docs/a.txt").dir("/home/u/out").file("/home/u/.bashrc");
  fs->dir("/home/u/my docs").dir("/srv/data").dir("/tmp").file("/tmp/tool/bin/run");
  return fs;
}

class WhyTest : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = tree(); }

  Policy build(const std::function<void(PolicyBuilder&)>& add = {}) {
    HostContext ctx;
    ctx.cwd = "/home/u/proj";
    ctx.home = "/home/u";
    ctx.user = "u";
    ctx.fs = fs_;
    PolicyBuilder b(ctx);
    if (add) add(b);
    auto p = b.build();
    EXPECT_TRUE(p.ok()) << p.error().describe();
    return p.ok() ? *p : Policy{};
  }

  Decision why(const Policy& p, std::string_view path, Op op) {
    return explain_path(p, path, op, *fs_);
  }

  std::shared_ptr<FakeFs> fs_;
};

TEST_F(WhyTest, ProjectIsReadWrite) {
  Policy p = build();
  Decision d = why(p, "src/main.c", Op::Write);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.kind, Decision::Kind::Rule);
  EXPECT_EQ(d.path, "/home/u/proj/src/main.c");
  EXPECT_EQ(d.rule_path, "/home/u/proj");
  EXPECT_EQ(d.access, Access::ReadWrite);
  EXPECT_EQ(d.origin, "current directory");
  EXPECT_TRUE(d.suggestion.empty());
  // A file that does not exist yet is decided by its directory's rule.
  EXPECT_TRUE(why(p, "src/new.c", Op::Write).allowed);
}

TEST_F(WhyTest, SystemIsReadOnlyAndExecutable) {
  Policy p = build();
  Decision exec = why(p, "/bin/ls", Op::Exec);
  EXPECT_TRUE(exec.allowed);
  EXPECT_EQ(exec.path, "/usr/bin/ls");
  EXPECT_EQ(exec.rule_path, "/usr");
  Decision w = why(p, "/usr/bin/ls", Op::Write);
  EXPECT_FALSE(w.allowed);
  EXPECT_EQ(w.kind, Decision::Kind::Rule);
  EXPECT_EQ(w.access, Access::Read);
  EXPECT_EQ(w.suggestion, "--allow /usr/bin/ls");
  EXPECT_EQ(w.reason, "/usr/bin/ls is inside /usr, which has read access (system default "
                      "(read-only)). Writing needs write access.");
}

TEST_F(WhyTest, SensitivePathInsideAllowedParentIsDenied) {
  Policy p = build([](PolicyBuilder& b) { b.allow("~", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"}); });
  Decision d = why(p, "~/.ssh/id_ed25519", Op::Read);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.kind, Decision::Kind::Denied);
  EXPECT_EQ(d.rule_path, "/home/u/.ssh");
  EXPECT_EQ(d.origin, "SSH keys, agent sockets and config");
  EXPECT_EQ(d.suggestion, "--read ~/.ssh");
  EXPECT_EQ(why(p, "~/.ssh/id_ed25519", Op::Write).suggestion, "--allow ~/.ssh");
  EXPECT_EQ(why(p, "/etc/shadow", Op::Read).kind, Decision::Kind::Denied);
}

TEST_F(WhyTest, RuleInsideDeniedPathIsVisible) {
  Policy p = build([](PolicyBuilder& b) {
    b.allow("~", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"});
    b.allow("~/.ssh/known_hosts", Access::Read, {Origin::Kind::Flag, "--read ~/.ssh/known_hosts"});
  });
  Decision d = why(p, "~/.ssh/known_hosts", Op::Read);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.kind, Decision::Kind::Rule);
  EXPECT_EQ(why(p, "~/.ssh/id_ed25519", Op::Read).kind, Decision::Kind::Denied);
}

TEST_F(WhyTest, ExactRuleLiftsDenial) {
  Policy p = build([](PolicyBuilder& b) {
    b.allow("~", Access::ReadWrite, {Origin::Kind::Flag, "--allow ~"});
    b.allow("~/.ssh", Access::Read, {Origin::Kind::Flag, "--read ~/.ssh"});
  });
  Decision d = why(p, "~/.ssh/id_ed25519", Op::Read);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.origin, "--read ~/.ssh");
}

TEST_F(WhyTest, ProtectedPathsRefuseWritesOnly) {
  Policy p = build();
  Decision w = why(p, ".git/hooks/pre-commit", Op::Write);
  EXPECT_FALSE(w.allowed);
  EXPECT_EQ(w.kind, Decision::Kind::Protected);
  EXPECT_EQ(w.rule_path, "/home/u/proj/.git/hooks");
  EXPECT_EQ(w.access, Access::Read);
  EXPECT_EQ(w.suggestion, "--allow ~/proj/.git/hooks");
  Decision r = why(p, ".git/config", Op::Read);
  EXPECT_TRUE(r.allowed);
  EXPECT_EQ(r.kind, Decision::Kind::Rule);
  EXPECT_EQ(why(p, ".envrc", Op::Write).kind, Decision::Kind::Protected);
  EXPECT_TRUE(why(p, ".env", Op::Write).allowed);
  // An absent protected path may be created (moved aside afterwards): the rule decides.
  Decision tasks = why(p, ".vscode/tasks.json", Op::Write);
  EXPECT_TRUE(tasks.allowed);
  EXPECT_EQ(tasks.kind, Decision::Kind::Rule);
  EXPECT_NE(tasks.reason.find("paddock moves what it creates aside"), std::string::npos);
}

TEST_F(WhyTest, HomeIsAnEmptyTmpfs) {
  Policy p = build();
  Decision key = why(p, "~/.ssh/id_ed25519", Op::Read);
  EXPECT_FALSE(key.allowed);  // the host's key is not visible in the empty HOME
  EXPECT_EQ(key.kind, Decision::Kind::Virtual);
  EXPECT_EQ(key.rule_path, "/home/u");
  EXPECT_EQ(key.suggestion, "--read ~/.ssh/id_ed25519");
  EXPECT_NE(key.reason.find("not visible"), std::string::npos);
  EXPECT_NE(key.reason.find("sensitive path (SSH keys"), std::string::npos);

  Decision fresh = why(p, "~/.cache/x", Op::Write);
  EXPECT_TRUE(fresh.allowed);
  EXPECT_NE(fresh.reason.find("discarded"), std::string::npos);

  EXPECT_TRUE(why(p, "~", Op::Write).allowed);
  EXPECT_EQ(why(p, "~/my docs", Op::Read).suggestion, "--read ~/'my docs'");
}

TEST_F(WhyTest, PrivateAreas) {
  Policy p = build();
  Decision tmp = why(p, "/tmp/x", Op::Write);
  EXPECT_TRUE(tmp.allowed);
  EXPECT_EQ(tmp.kind, Decision::Kind::Virtual);
  EXPECT_TRUE(why(p, "/dev/null", Op::Write).allowed);
  EXPECT_TRUE(why(p, "/dev/pts/0", Op::Read).allowed);
  Decision sda = why(p, "/dev/sda", Op::Read);
  EXPECT_FALSE(sda.allowed);
  EXPECT_EQ(sda.kind, Decision::Kind::NotVisible);
  EXPECT_TRUE(sda.suggestion.empty());
  EXPECT_TRUE(why(p, "/proc/self/status", Op::Read).allowed);
  EXPECT_FALSE(why(p, "/proc/self/status", Op::Write).allowed);
  EXPECT_FALSE(why(p, "/dev/null", Op::Exec).allowed);
  EXPECT_TRUE(why(p, "/dev/shm/x", Op::Exec).allowed);
  EXPECT_FALSE(why(p, "/proc/sys/kernel/hostname", Op::Write).allowed);
  Decision sys = why(p, "/sys/kernel", Op::Read);
  EXPECT_FALSE(sys.allowed);
  EXPECT_EQ(sys.kind, Decision::Kind::NotVisible);
  Policy broad = build([](PolicyBuilder& b) { b.allow("/", Access::Read, {Origin::Kind::Flag, "--read /"}); });
  EXPECT_FALSE(why(broad, "/sys/kernel", Op::Read).allowed);
  EXPECT_TRUE(why(broad, "/srv/data", Op::Read).allowed);
  EXPECT_EQ(why(broad, "/tmp/x", Op::Read).kind, Decision::Kind::Virtual);
}

TEST_F(WhyTest, HostPathUnderTmpIsNotVisible) {
  // The sandbox's /tmp is its own: a host file there cannot be run or read without a rule.
  Policy p = build();
  Decision run = why(p, "/tmp/tool/bin/run", Op::Exec);
  EXPECT_FALSE(run.allowed);
  EXPECT_EQ(run.kind, Decision::Kind::Virtual);
  EXPECT_NE(run.reason.find("host's /tmp/tool/bin/run is not visible"), std::string::npos) << run.reason;
  EXPECT_EQ(run.suggestion, "--read /tmp/tool/bin/run");
  EXPECT_EQ(why(p, "/tmp/tool/bin/run", Op::Read).suggestion, "--read /tmp/tool/bin/run");
  EXPECT_TRUE(why(p, "/tmp/new-file", Op::Write).allowed);  // nothing on the host: created privately
  EXPECT_TRUE(why(p, "/tmp", Op::Write).allowed);
}

TEST_F(WhyTest, RuleOnHomeReplacesTheEmptyHome) {
  Policy p = build([](PolicyBuilder& b) { b.allow("~/docs", Access::Read, {Origin::Kind::Flag, "--read ~/docs"}); });
  Decision d = why(p, "~/docs/a.txt", Op::Read);
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.kind, Decision::Kind::Rule);
  EXPECT_EQ(d.origin, "--read ~/docs");
  Decision w = why(p, "~/docs/a.txt", Op::Write);
  EXPECT_FALSE(w.allowed);
  EXPECT_EQ(w.suggestion, "--allow ~/docs/a.txt");
}

TEST_F(WhyTest, WriteOnlyRule) {
  Policy p = build([](PolicyBuilder& b) { b.allow("~/out", Access::Write, {Origin::Kind::Flag, "--write ~/out"}); });
  EXPECT_TRUE(why(p, "~/out/log", Op::Write).allowed);
  Decision r = why(p, "~/out/log", Op::Read);
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.suggestion, "--allow ~/out");  // log is missing: its directory is named
}

TEST_F(WhyTest, NotVisibleSuggestsTheNarrowestFlag) {
  Policy p = build();
  Decision d = why(p, "/srv/data/file.csv", Op::Read);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.kind, Decision::Kind::NotVisible);
  EXPECT_EQ(d.suggestion, "--read /srv/data");
  EXPECT_EQ(why(p, "/srv/data", Op::Write).suggestion, "--allow /srv/data");
}

TEST_F(WhyTest, JsonAndText) {
  Policy p = build();
  Decision d = why(p, "/srv/data", Op::Read);
  auto j = to_json(d);
  EXPECT_EQ(j["version"], "paddock.why/1");
  EXPECT_EQ(j["path"], "/srv/data");
  EXPECT_EQ(j["op"], "read");
  EXPECT_EQ(j["allowed"], false);
  EXPECT_EQ(j["kind"], "not-visible");
  EXPECT_EQ(j["access"], "none");
  EXPECT_EQ(j["suggestion"], "--read /srv/data");
  for (const char* k : {"rule_path", "origin", "reason"}) EXPECT_TRUE(j.contains(k)) << k;
  std::string text = to_text(d);
  EXPECT_EQ(text,
            "/srv/data (read): not allowed\n"
            "  access:     none\n"
            "  why:        /srv/data is not visible inside the sandbox: no rule covers it.\n"
            "  to allow:   paddock run --read /srv/data ...\n");
}

}  // namespace
}  // namespace paddock
