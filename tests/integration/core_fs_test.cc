// Kernel tests of the default filesystem view and the --allow/--read/--write rules: real
// sandboxes, real mounts, run as root and as an unprivileged user (scripts/run-as.sh).
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

TEST(CoreFs, ProjectWriteSucceedsAndPersists) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.probe_run({"write", w.project + "/out.txt", "hello from inside"});
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "OK")) << describe(p);
  EXPECT_EQ(read_file(w.project + "/out.txt"), "hello from inside");
  // Relative paths too: the cwd inside is the project.
  auto q = w.probe_run({"write", "rel.txt", "rel"});
  ASSERT_EQ(q.code, 0) << describe(q);
  EXPECT_EQ(read_file(w.project + "/rel.txt"), "rel");
}

TEST(CoreFs, CwdInsideIsHostCwd) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.sh("pwd");
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_EQ(p.out, w.project + "\n");
}

TEST(CoreFs, SystemDirsReadOnly) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (const char* path : {"/usr/paddock-kt", "/etc/paddock-kt", "/usr/bin/paddock-kt"}) {
    auto p = w.probe_run({"write", path});
    EXPECT_EQ(p.code, 1) << path << "\n" << describe(p);
    EXPECT_TRUE(contains(p.out, "DENIED EROFS") || contains(p.out, "DENIED EACCES")) << describe(p);
    EXPECT_FALSE(exists(path)) << path;
  }
  // Existing system files cannot be modified either (as root this would otherwise succeed).
  auto p = w.probe_run({"write", "/etc/hostname", "pwned"});
  EXPECT_EQ(p.code, 1) << describe(p);
  // ...but they can be read.
  auto r = w.probe_run({"read", "/etc/passwd"});
  EXPECT_EQ(r.code, 0) << describe(r);
}

TEST(CoreFs, HomeIsFreshAndEmpty) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/notes.txt", "host home file");
  auto p = w.sh("ls -A \"$HOME\"; echo HOME=$HOME; stat -f -c %T \"$HOME\"");
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "HOME=" + w.home)) << describe(p);
  EXPECT_FALSE(contains(p.out, "notes.txt")) << describe(p);
  EXPECT_FALSE(contains(p.out, ".ssh")) << describe(p);
  EXPECT_TRUE(contains(p.out, "tmpfs")) << describe(p);
  // The project (inside HOME) is bound into the empty HOME: only "proj" is listed.
  EXPECT_TRUE(contains(p.out, "proj")) << describe(p);
  auto r = w.probe_run({"read", w.home + "/notes.txt"});
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_TRUE(contains(r.out, "DENIED ENOENT")) << describe(r);
  // Writes to the fresh HOME do not reach the host's HOME.
  auto s = w.probe_run({"write", w.home + "/dropped.txt"});
  EXPECT_EQ(s.code, 0) << describe(s);
  EXPECT_FALSE(exists(w.home + "/dropped.txt"));
}

// Writes outside every host-backed path land in the fresh HOME and are gone at exit: said after
// the run, in the footer and the report, even when the command succeeds (what paddock made there
// itself, the masks' mount points, and the private /tmp are not listed). With
// --refuse-discarded-writes, or a profile's [sandbox] refuse_discarded_writes, they fail instead
// and the project stays writable (issue 30 item 1).
TEST(CoreFs, DiscardedWritesAreNamedOrRefused) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string report = w.root.path() + "/report.json";
  auto p = w.sh("echo x > ../sibling.txt && mkdir -p ~/.cache/tool && echo abc > ~/.cache/tool/data && "
                "echo t > /tmp/scratch",
                {"--report", report});
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(exists(w.home + "/sibling.txt"));
  EXPECT_TRUE(contains(p.err, "[paddock] discarded at exit: 4 entries (6 bytes) written outside every host-backed "
                              "path, in the sandbox's fresh ~: ~/.cache/, ~/sibling.txt\n"))
      << describe(p);
  EXPECT_TRUE(contains(p.err, "--refuse-discarded-writes")) << describe(p);
  EXPECT_FALSE(contains(p.err, "scratch")) << describe(p);
  const std::string text = read_file(report);
  EXPECT_TRUE(contains(text, "\"discarded_writes\": {")) << text;
  EXPECT_TRUE(contains(text, "\"entries\": 4")) << text;
  EXPECT_TRUE(contains(text, "\"bytes\": 6")) << text;
  EXPECT_TRUE(contains(text, "\"" + w.home + "/sibling.txt\"")) << text;

  auto quiet = w.sh("true");
  ASSERT_EQ(quiet.code, 0) << describe(quiet);
  EXPECT_FALSE(contains(quiet.err, "discarded")) << describe(quiet);

  write_file(w.home + "/.config/paddock/profiles/strict.toml", "[sandbox]\nrefuse_discarded_writes = true\n");
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--refuse-discarded-writes"}, std::vector<std::string>{"--profile", "strict"}}) {
    auto r = w.sh("echo x > ../sibling.txt; echo rc=$?; echo y > inproj.txt", flags);
    EXPECT_EQ(r.code, 0) << flags[0] << ": " << describe(r);
    EXPECT_FALSE(contains(r.out, "rc=0")) << flags[0] << ": " << describe(r);
    EXPECT_TRUE(contains(r.err, "Read-only file system")) << flags[0] << ": " << describe(r);
    EXPECT_FALSE(contains(r.err, "discarded")) << flags[0] << ": " << describe(r);
    EXPECT_EQ(read_file(w.project + "/inproj.txt"), "y\n") << flags[0];
    ::unlink((w.project + "/inproj.txt").c_str());
  }
}

TEST(CoreFs, ReadFlagBindsReadOnly) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/docs/readme.md", "documentation");
  auto r = w.probe_run({"--read", "~/docs"}, {"read", w.home + "/docs/readme.md"});
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "documentation")) << describe(r);
  auto wr = w.probe_run({"--read", "~/docs"}, {"write", w.home + "/docs/readme.md", "x"});
  EXPECT_EQ(wr.code, 1) << describe(wr);
  EXPECT_TRUE(contains(wr.out, "DENIED EROFS") || contains(wr.out, "DENIED EACCES")) << describe(wr);
  EXPECT_EQ(read_file(w.home + "/docs/readme.md"), "documentation");
  auto cr = w.probe_run({"--read", "~/docs"}, {"write", w.home + "/docs/new.md", "x"});
  EXPECT_EQ(cr.code, 1) << describe(cr);
  EXPECT_FALSE(exists(w.home + "/docs/new.md"));
}

TEST(CoreFs, AllowRelativeParentReadWrite) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/lib/a.txt", "lib file");
  auto r = w.probe_run({"--allow", "../lib"}, {"read", w.home + "/lib/a.txt"});
  EXPECT_EQ(r.code, 0) << describe(r);
  auto wr = w.probe_run({"--allow", "../lib"}, {"write", w.home + "/lib/b.txt", "written"});
  EXPECT_EQ(wr.code, 0) << describe(wr);
  EXPECT_EQ(read_file(w.home + "/lib/b.txt"), "written");
  // Without the flag the sibling is invisible.
  auto no = w.probe_run({"read", w.home + "/lib/a.txt"});
  EXPECT_EQ(no.code, 1) << describe(no);
}

// Inside HOME (readable by the sandbox) a --write rule cannot be write-only: Landlock adds
// access along the path. paddock refuses it instead of silently granting read.
TEST(CoreFs, WriteFlagInsideReadableAreaIsRefused) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/drop/existing.txt", "do not read me");
  auto rd = w.probe_run({"--write", "~/drop"}, {"read", w.home + "/drop/existing.txt"});
  EXPECT_NE(rd.code, 0) << describe(rd);
  EXPECT_FALSE(contains(rd.out, "do not read me")) << describe(rd);
  EXPECT_TRUE(contains(rd.err, "cannot be write-only")) << describe(rd);
}

// The same outside HOME and /tmp (no private area above the rule).
TEST(CoreFs, WriteFlagIsWriteOnlyOutsideHome) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir drop("/var/tmp/paddock-kt-drop");
  chmod(drop.path().c_str(), 0755);
  write_file(drop / "existing.txt", "do not read me");
  auto cr = w.probe_run({"--write", drop.path()}, {"write", drop / "new.txt", "created"});
  EXPECT_EQ(cr.code, 0) << describe(cr);
  EXPECT_EQ(read_file(drop / "new.txt"), "created");
  auto rd = w.probe_run({"--write", drop.path()}, {"read", drop / "existing.txt"});
  EXPECT_EQ(rd.code, 1) << describe(rd);
  EXPECT_FALSE(contains(rd.out, "do not read me")) << describe(rd);
}

TEST(CoreFs, SymlinkedRulePathResolves) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/real-docs/file.txt", "via link");
  ASSERT_EQ(symlink("real-docs", (w.home + "/link-docs").c_str()), 0);
  // The rule names the real directory; the sandbox sees it at its real path.
  auto r = w.probe_run({"--read", "~/link-docs"}, {"read", w.home + "/real-docs/file.txt"});
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "via link")) << describe(r);
  auto why = w.paddock({"why", "--read", "~/link-docs", "--path", w.home + "/real-docs/file.txt", "--op", "read"});
  EXPECT_EQ(why.code, 0) << describe(why);
}

TEST(CoreFs, CwdRootOrHomeRefused) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto o = w.opts();
  o.cwd = w.home;
  auto p = w.paddock({"run", "--", "/bin/true"}, o);
  EXPECT_EQ(p.code, 2) << describe(p);
  EXPECT_TRUE(contains(p.err, "home directory")) << describe(p);
  EXPECT_TRUE(contains(p.err, "--allow")) << describe(p);  // the hint names the way out
  // Explicit: allowed.
  auto q = w.paddock({"run", "--allow", ".", "--", "/bin/true"}, o);
  EXPECT_EQ(q.code, 0) << describe(q);

  o.cwd = "/";
  auto r = w.paddock({"run", "--", "/bin/true"}, o);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_TRUE(contains(r.err, "refusing")) << describe(r);
  auto s = w.paddock({"run", "--read", ".", "--", "/bin/true"}, o);
  EXPECT_EQ(s.code, 0) << describe(s);
}

TEST(CoreFs, PrivateTmp) {
  KTEST_REQUIRE_BINARIES();
  World w;
  TempDir other("paddock-kt-hosttmp");
  write_file(other / "host-file", "host tmp");
  auto r = w.probe_run({"read", other / "host-file"});
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_TRUE(contains(r.out, "DENIED ENOENT")) << describe(r);
  auto p = w.sh("ls -A /tmp");
  EXPECT_FALSE(contains(p.out, "paddock-kt-hosttmp")) << describe(p);
  // A write to the private /tmp is fine and does not appear on the host.
  std::string name = "/tmp/paddock-kt-private-" + std::to_string(getpid());
  auto wr = w.probe_run({"write", name});
  EXPECT_EQ(wr.code, 0) << describe(wr);
  EXPECT_FALSE(exists(name));
}

TEST(CoreFs, DevIsMinimal) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.sh("ls -A /dev");
  ASSERT_EQ(p.code, 0) << describe(p);
  std::set<std::string> allowed{"null", "zero", "full", "random", "urandom", "tty", "pts", "ptmx", "shm",
                                "fd", "stdin", "stdout", "stderr", "console", "core", "mqueue"};
  for (const auto& name : split_lines(p.out))
    EXPECT_TRUE(allowed.count(name)) << "unexpected /dev entry: " << name << "\n" << describe(p);
  for (const char* dev : {"/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/mem", "/dev/kmsg", "/dev/tty0", "/dev/kvm"}) {
    auto s = w.probe_run({"stat", dev});
    EXPECT_EQ(s.code, 1) << dev << "\n" << describe(s);
  }
  auto n = w.sh("echo hi > /dev/null && head -c 4 /dev/urandom | wc -c");
  EXPECT_EQ(n.code, 0) << describe(n);
  EXPECT_TRUE(contains(n.out, "4")) << describe(n);
}

TEST(CoreFs, NoHostSys) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.probe_run({"stat", "/sys/kernel"});
  EXPECT_EQ(p.code, 1) << describe(p);
  auto q = w.probe_run({"read", "/sys/class/net/lo/address"});
  EXPECT_EQ(q.code, 1) << describe(q);
}

TEST(CoreFs, ProcShowsOnlySandbox) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto p = w.probe_run({"procs"});
  ASSERT_EQ(p.code, 0) << describe(p);
  int n = 0;
  ASSERT_EQ(sscanf(p.out.c_str(), "OK procs %d", &n), 1) << describe(p);
  EXPECT_GE(n, 1);
  EXPECT_LE(n, 3) << describe(p);  // the probe itself (and perhaps the sandbox's init)
}

}  // namespace
}  // namespace ktest
