#include "supervisor/denial.h"

#include <gtest/gtest.h>

#include <memory>

#include "policy/fake_fs.h"

namespace paddock::supervisor {
namespace {

class DenialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = std::make_shared<FakeFs>();
    fs_->dir("/usr/bin").dir("/etc").file("/etc/passwd").dir("/home/u/proj/src").file("/home/u/proj/.envrc");
    fs_->dir("/home/u/.ssh").file("/home/u/.ssh/id_ed25519").dir("/home/u/docs").dir("/srv/data");
    HostContext ctx;
    ctx.cwd = "/home/u/proj";
    ctx.home = "/home/u";
    ctx.user = "u";
    ctx.fs = fs_;
    PolicyBuilder b(ctx);
    b.allow("/home/u/docs", Access::Read, {Origin::Kind::Flag, "--read ~/docs"});
    auto p = b.build();
    ASSERT_TRUE(p.ok()) << p.error().describe();
    policy_ = *p;
  }
  Denial of(std::string_view path, Op op) {
    Decision d = explain_path(policy_, path, op, *fs_);
    EXPECT_FALSE(d.allowed) << path;
    return from_decision(d);
  }
  std::shared_ptr<FakeFs> fs_;
  Policy policy_;
};

// The issue's own example: ENOENT inside, and the record says which sensitive rule hid it.
TEST_F(DenialTest, HiddenSensitiveFileNamesItsRule) {
  HostContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.fs = fs_;
  PolicyBuilder b(ctx);
  b.allow("/home/u", Access::Read, {Origin::Kind::Flag, "--read ~"});
  auto p = b.build();
  ASSERT_TRUE(p.ok());
  Decision why = explain_path(*p, "/home/u/.ssh/id_ed25519", Op::Read, *fs_);
  ASSERT_FALSE(why.allowed);
  Denial d = from_decision(why);
  EXPECT_EQ(d.layer, Denial::Layer::MountHidden);
  EXPECT_EQ(d.what, "/home/u/.ssh/id_ed25519");
  EXPECT_EQ(d.op, "read");
  EXPECT_EQ(d.rule.rfind("sensitive rule /home/u/.ssh", 0), 0u) << d.rule;
  EXPECT_FALSE(d.allow_with.empty());
}

// Without a rule on HOME, the sandbox's HOME is a fresh one: the host's file is simply not there.
TEST_F(DenialTest, HostFileUnderTheFreshHomeIsHidden) {
  Denial d = of("/home/u/.ssh/id_ed25519", Op::Read);
  EXPECT_EQ(d.layer, Denial::Layer::MountHidden);
  EXPECT_EQ(d.rule.rfind("sandbox-private area /home/u", 0), 0u) << d.rule;
}

TEST_F(DenialTest, OutsideEveryRuleIsHidden) {
  Denial d = of("/srv/data", Op::Read);
  EXPECT_EQ(d.layer, Denial::Layer::MountHidden);
  EXPECT_EQ(d.rule, "outside every rule (not in the sandbox)");
  EXPECT_EQ(d.allow_with, "--read /srv/data");
}

TEST_F(DenialTest, ReadOnlyRuleWrittenIsTheReadOnlyMountAndNamesTheRule) {
  Denial d = of("/home/u/docs/new.txt", Op::Write);
  EXPECT_EQ(d.layer, Denial::Layer::MountReadOnly);
  EXPECT_EQ(d.rule, "rule /home/u/docs (--read ~/docs)");
  EXPECT_NE(d.allow_with.find("/docs"), std::string::npos) << d.allow_with;
}

TEST_F(DenialTest, ProtectedPathIsReadOnly) {
  Denial d = of("/home/u/proj/.envrc", Op::Write);
  EXPECT_EQ(d.layer, Denial::Layer::MountReadOnly);
  EXPECT_EQ(d.rule.rfind("protected path /home/u/proj/.envrc", 0), 0u) << d.rule;
}

TEST(Denial, FromNetworkKeepsHostPortReasonFlagAndCount) {
  NetworkDecision n{"denied.test", 443, "connect", false, "not in the allowlist", "--allow-domain denied.test", 3};
  Denial d = from_network(n);
  EXPECT_EQ(d.layer, Denial::Layer::Egress);
  EXPECT_EQ(d.what, "denied.test:443");
  EXPECT_EQ(d.op, "connect");
  EXPECT_EQ(d.rule, "not in the allowlist");
  EXPECT_EQ(d.allow_with, "--allow-domain denied.test");
  EXPECT_EQ(d.count, 3u);
  n.host = "::1";
  EXPECT_EQ(from_network(n).what, "[::1]:443");
}

TEST(Denial, FromSyscallNamesTheEntryAndNoFlag) {
  Denial d = from_syscall("unshare(CLONE_NEWUSER)", "EPERM", "new namespaces");
  EXPECT_EQ(d.layer, Denial::Layer::Seccomp);
  EXPECT_EQ(d.what, "unshare(CLONE_NEWUSER)");
  EXPECT_EQ(d.op, "syscall");
  EXPECT_EQ(d.rule, "denylist (EPERM): new namespaces");
  EXPECT_TRUE(d.allow_with.empty());
  d.count = 3;
  d.pid = 7;
  d.comm = "sh";
  EXPECT_EQ(describe(d),
            "refused syscall unshare(CLONE_NEWUSER) [seccomp: denylist (EPERM): new namespaces] x3, "
            "first by pid 7 (sh); no flag allows it");
}

TEST(Denial, JsonRoundTripsEveryField) {
  Denial d{Denial::Layer::MountReadOnly, "/x/\x1b[2Jy", "write", "rule /x", "--write /x", 12, "py\xff", 5, 1700000000123};
  nlohmann::json j = to_json(d);
  EXPECT_EQ(j["version"], "paddock.denial/1");
  EXPECT_EQ(j["layer"], "mount-read-only");
  // What the sandbox chose never reaches a terminal raw: the serializer escapes controls and
  // replaces bytes that are not UTF-8.
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("\\u001b[2J"), std::string::npos) << text;
  auto back = denial_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->layer, d.layer);
  EXPECT_EQ(back->what, d.what);
  EXPECT_EQ(back->op, d.op);
  EXPECT_EQ(back->rule, d.rule);
  EXPECT_EQ(back->allow_with, d.allow_with);
  EXPECT_EQ(back->pid, d.pid);
  EXPECT_EQ(back->comm, d.comm);
  EXPECT_EQ(back->count, d.count);
  EXPECT_EQ(back->first_unix_ms, d.first_unix_ms);
  d.allow_with.clear();
  d.pid = 0;
  d.comm.clear();
  j = to_json(d);
  EXPECT_TRUE(j["allow_with"].is_null());
  EXPECT_TRUE(j["pid"].is_null());
  EXPECT_TRUE(j["comm"].is_null());
  ASSERT_TRUE(denial_from_json(j).ok());
}

TEST(Denial, JsonRefusesWhatIsNotADenialNamingTheKey) {
  Denial d = from_syscall("bpf", "EPERM", "eBPF");
  nlohmann::json j = to_json(d);
  j["layer"] = "kernel";
  auto r = denial_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "layer");
  j = to_json(d);
  j.erase("what");
  EXPECT_EQ(denial_from_json(j).error().where, "what");
  j = to_json(d);
  j["version"] = "paddock.denial/2";
  EXPECT_EQ(denial_from_json(j).error().where, "version");
  j = to_json(d);
  j["count"] = -1;
  EXPECT_EQ(denial_from_json(j).error().where, "count");
}

}  // namespace
}  // namespace paddock::supervisor
