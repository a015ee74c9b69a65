// Escape suite, files the host later runs or opens (issue 12, item 3): set-id files, FIFOs and
// device nodes left in the project. Each test tries from inside a real sandbox — with namespaces
// and in the fallback — and then checks the host's files themselves.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "helpers/test_util.h"

namespace ktest {
namespace {

// Every file below `dir` on the host with a set-id bit, a FIFO or a device node.
std::vector<std::string> dangerous_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0) continue;
    if ((st.st_mode & (S_ISUID | S_ISGID)) != 0 || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
        S_ISBLK(st.st_mode))
      out.push_back(it->path().string());
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += e + "\n";
  return s;
}

class HostRun : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (paddock_bin().empty() || probe_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set";
  }
  bool fallback() const { return GetParam(); }
  RunOpts opts(const World& w) const {
    RunOpts o = w.opts();
    if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    return o;
  }
};

// Each mode-setting syscall, with valid arguments that succeed outside paddock, fails with its
// exact errno; an ordinary chmod and a plain open with a stray mode still work.
TEST_P(HostRun, SetuidThroughEveryModeSyscall) {
  World w;
  auto p = w.paddock({"run", "--", w.probe, "setid", w.project}, opts(w));
  ASSERT_EQ(p.code, 0) << describe(p);
  const char* expected[] = {"chmod-plain OK",   "chmod EPERM",        "chmod-sgid EPERM",   "fchmod EPERM",
                            "fchmodat EPERM",   "fchmodat2 EPERM",    "creat EPERM",        "open-creat EPERM",
                            "openat-creat EPERM", "openat-tmpfile EPERM", "mknod EPERM",    "mknodat EPERM",
                            "mkdir EPERM",      "mkdirat EPERM",      "openat2 ENOSYS",     "open-plain OK"};
  auto lines = split_lines(p.out);
  ASSERT_EQ(lines.size(), std::size(expected)) << describe(p);
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i], expected[i]);
  EXPECT_EQ(joined(dangerous_files(w.project)), "");
}

// The tools people use: chmod u+s on a shell copy, install -m 4755, cp -p of a setuid binary,
// Python's and Perl's chmod, and tar extracting a setuid member. The host finds no set-id file.
TEST_P(HostRun, SetuidWithEverydayTools) {
  World w;
  // A tar archive with a setuid member, made on the host (the mode is just a header field).
  auto mk = run({"/usr/bin/python3", "-c",
                 "import tarfile,io,sys\n"
                 "t=tarfile.open(sys.argv[1],'w'); i=tarfile.TarInfo('suid-from-tar'); i.mode=0o4755; "
                 "d=b'#!/bin/sh\\n'; i.size=len(d); t.addfile(i,io.BytesIO(d)); t.close()",
                 w.project + "/a.tar"});
  ASSERT_EQ(mk.code, 0) << describe(mk);
  std::string script =
      "cp /bin/sh ./sh1 && chmod u+s ./sh1; chmod 4755 ./sh1; "
      "install -m 4755 /bin/sh ./sh2; "
      "cp /bin/sh ./sh3 && python3 -c 'import os; os.chmod(\"sh3\", 0o6755)'; "
      "cp /bin/sh ./sh4 && perl -e 'chmod 04755, \"sh4\"'; "
      "tar -xpf a.tar; "
      "for s in /usr/bin/su /usr/bin/passwd /bin/mount; do [ -u \"$s\" ] && cp -p \"$s\" ./copy-$(basename $s); done; "
      "true";
  auto p = w.paddock({"run", "--", "/bin/sh", "-c", script}, opts(w));
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(exists(w.project + "/sh1")) << describe(p);  // the copy happened; only the bit was refused
  EXPECT_TRUE(exists(w.project + "/suid-from-tar")) << describe(p);
  EXPECT_EQ(joined(dangerous_files(w.project)), "") << describe(p);
}

// A FIFO left in the project hangs the host tools that open it: refused there, while the
// sandbox's own /tmp keeps FIFOs (make's jobserver, process substitution).
TEST_P(HostRun, FifoInProject) {
  World w;
  auto p = w.paddock({"run", "--", "/bin/sh", "-c",
                      w.probe + " mkfifo " + w.project + "/fifo; " + w.probe + " mkfifo \"${TMPDIR:-/tmp}/fifo\""},
                     opts(w));
  auto lines = split_lines(p.out);
  ASSERT_EQ(lines.size(), 2u) << describe(p);
  EXPECT_EQ(lines[0], "DENIED EACCES " + w.project + "/fifo");
  // The fallback's TMPDIR is a private directory holding nothing host-backed: FIFOs work there.
  // (With namespaces this world's project lies under /tmp, so its /tmp has none: unit-tested in
  // PlanTest.FifosOnlyWhereNothingHostBackedLiesBelow.)
  if (fallback()) EXPECT_TRUE(lines[1].rfind("OK ", 0) == 0) << lines[1];
  EXPECT_EQ(joined(dangerous_files(w.project)), "");
}

// Device nodes: no Landlock right to make them anywhere, and no capability to.
TEST_P(HostRun, DeviceNodeInProject) {
  World w;
  auto p = w.paddock({"run", "--", w.probe, "mknod", w.project + "/null-copy"}, opts(w));
  EXPECT_EQ(p.code, 1) << describe(p);
  EXPECT_TRUE(contains(p.out, "DENIED")) << describe(p);
  EXPECT_FALSE(exists(w.project + "/null-copy"));
}

// A protected directory renamed away and rebuilt with a task of the sandbox's: with namespaces it
// is held in place (a mount point); in the fallback the new task is moved aside after the run.
// Either way no task file the host's editor would load is left.
TEST_P(HostRun, ProtectedDirectoryRenamedAndRebuilt) {
  World w;
  write_file(w.project + "/.vscode/settings.json", "{}\n");
  write_file(w.project + "/.cargo/config.toml", "[build]\n");
  auto p = w.paddock({"run", "--", "/bin/sh", "-c",
                      "mv .vscode .vscode-old; mkdir -p .vscode && echo '{\"tasks\":[]}' > .vscode/tasks.json; "
                      "mv .cargo .cargo-old; mkdir -p .cargo && printf '[target.x86_64-unknown-linux-gnu]\\nrunner = \"sh evil\"\\n' > .cargo/config.toml; true"},
                     opts(w));
  EXPECT_FALSE(exists(w.project + "/.vscode/tasks.json")) << describe(p);
  EXPECT_EQ(read_file(w.project + "/.cargo/config.toml"), fallback() ? "" : "[build]\n") << describe(p);
  if (fallback()) {
    EXPECT_TRUE(contains(p.err, w.project + "/.vscode/tasks.json")) << describe(p);
    EXPECT_TRUE(contains(p.err, w.project + "/.cargo/config.toml")) << describe(p);
  } else {
    EXPECT_FALSE(exists(w.project + "/.vscode-old")) << describe(p);
    EXPECT_FALSE(exists(w.project + "/.cargo-old")) << describe(p);
    EXPECT_EQ(read_file(w.project + "/.vscode/settings.json"), "{}\n");
  }
}

// Issue 25: the protected names at any depth. Direnv, editors and agents started in a
// subdirectory read that directory's files; created there by the run, they are moved aside and
// named, as the project's own are.
TEST_P(HostRun, ProtectedNamesInSubdirectories) {
  World w;
  const std::vector<std::string> planted = {"sub/.envrc", "sub/.vscode/tasks.json", "pkg/.claude/settings.json",
                                            "a/b/.mcp.json", "crate/.cargo/config.toml", "web/.npmrc"};
  std::string script = "set -e";
  for (const std::string& rel : planted)
    script += "; mkdir -p \"$(dirname " + rel + ")\" && echo '{\"planted\": 1}' > " + rel;
  auto p = w.paddock({"run", "--", "/bin/sh", "-c", script + "; echo kept > pkg/.claude/notes.md"}, opts(w));
  ASSERT_EQ(p.code, 0) << describe(p);
  for (const std::string& rel : planted) {
    EXPECT_FALSE(exists(w.project + "/" + rel)) << rel << "\n" << describe(p);
    EXPECT_TRUE(exists(w.project + "/" + rel + ".paddock-quarantine")) << rel;
    EXPECT_TRUE(contains(p.err, w.project + "/" + rel)) << rel << "\n" << describe(p);
  }
  EXPECT_EQ(read_file(w.project + "/pkg/.claude/notes.md"), "kept\n");  // not a protected name
}

// The host-side tool for one of them: npm in a subdirectory package takes that package's .npmrc,
// whose script-shell then runs instead of sh on the host's next `npm run`.
TEST_P(HostRun, NestedNpmrcRunsNothingOnTheHostsNpmRun) {
  if (run({"/bin/sh", "-c", "command -v npm"}).code != 0) GTEST_SKIP() << "npm is not installed";
  auto setup = [](const World& w) {
    write_file(w.project + "/pkg/package.json", "{\"name\": \"p\", \"version\": \"1.0.0\", \"scripts\": {\"hello\": \"echo hi\"}}\n");
  };
  const std::string attack =
      "printf '#!/bin/sh\\ntouch %s\\nexec /bin/sh \"$@\"\\n' \"$MARK\" > pkg/shell.sh && chmod +x pkg/shell.sh && "
      "echo \"script-shell=$PWD/pkg/shell.sh\" > pkg/.npmrc";
  auto npm_runs_it = [](const World& w) {
    const std::string mark = w.root / "npm-ran";
    unlink(mark.c_str());
    RunOpts o = w.opts();
    o.cwd = w.project + "/pkg";
    o.env["npm_config_update_notifier"] = "false";
    o.env["npm_config_cache"] = w.root / "npm-cache";
    run({"/bin/sh", "-c", "npm run hello >/dev/null 2>&1; true"}, o);
    return exists(mark);
  };
  {
    World control;
    setup(control);
    RunOpts o = control.opts();
    o.env["MARK"] = control.root / "npm-ran";
    run({"/bin/sh", "-c", attack}, o);
    ASSERT_TRUE(npm_runs_it(control)) << "the attack does not work even without paddock, so this test proves nothing";
  }
  World w;
  setup(w);
  auto p = w.paddock({"run", "--", "/bin/sh", "-c", "MARK=" + (w.root / "npm-ran") + "; " + attack}, opts(w));
  EXPECT_FALSE(npm_runs_it(w)) << "the host's npm ran what the sandbox planted\n" << describe(p);
  EXPECT_TRUE(contains(p.err, w.project + "/pkg/.npmrc")) << describe(p);
}

INSTANTIATE_TEST_SUITE_P(Escape, HostRun, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Namespaces"; });

}  // namespace
}  // namespace ktest
