// Escapes specific to the fallback (no user namespaces: Landlock + seccomp, issue 17), forced with
// PADDOCK_DANGER_DISABLE_NAMESPACES=1. Each test tries the escape from inside and checks the host.
#include <fcntl.h>
#include <signal.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "helpers/test_util.h"
#include "sys/remove_tree.h"

namespace ktest {
namespace {

using namespace std::chrono_literals;

RunOpts fallback_opts(const World& w) {
  RunOpts o = w.opts();
  o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  return o;
}

#define REQUIRE_FALLBACK()                                                                     \
  do {                                                                                         \
    KTEST_REQUIRE_BINARIES();                                                                  \
    if (landlock_abi() < 1) GTEST_SKIP() << "no Landlock: the fallback cannot run on this kernel"; \
  } while (0)

// Processes whose command line holds `marker`, paddock's own processes (its sandbox init is a copy
// of paddock whose argv holds the script) left out when `skip_paddock`.
std::vector<pid_t> survivors(const std::string& marker, bool skip_paddock) {
  std::vector<pid_t> left;
  for (pid_t pid : host_pids_with(marker)) {
    std::string cmd = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    if (skip_paddock && cmd.rfind(paddock_bin() + std::string(1, '\0'), 0) == 0) continue;
    left.push_back(pid);
  }
  return left;
}

std::vector<pid_t> wait_until_gone(const std::string& marker, bool skip_paddock, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<pid_t> left;
  for (;;) {
    left = survivors(marker, skip_paddock);
    if (left.empty() || std::chrono::steady_clock::now() > deadline) return left;
    std::this_thread::sleep_for(50ms);
  }
}

// A daemon two levels deep: a session leader (a shell) with a live child of its own, both
// carrying `marker` in their command lines, started in the background; the script waits until
// both run. The shell's child is reparented to the sandbox's init only when the shell dies.
std::string two_level_daemon(const World& w, const std::string& marker) {
  std::string ready = w.project + "/ready-" + std::to_string(getpid());
  // They would live 10 minutes: longer than any test's patience.
  return "setsid sh -c '" + w.probe + " sleep 600 " + marker + " & echo $! > " + ready + "; exec " + w.probe +
         " sleep 601 " + marker + "' </dev/null >/dev/null 2>&1 & " + w.probe + " daemon " + w.project +
         "/pid-" + marker + " 600 >/dev/null; while [ ! -s " + ready + " ]; do sleep 0.05; done; ";
}

// --- item 5: daemons outlive the run -----------------------------------------------------------

TEST(Fallback, DaemonDiesWhenTheRunEnds) {
  REQUIRE_FALLBACK();
  World w;
  std::string marker = "fb-end-" + std::to_string(getpid());
  RunOpts o = fallback_opts(w);
  // Generous: without the level-by-level sweep the run never ends (the init blocked on the
  // grandchild it had not killed).
  o.timeout = 90s;
  auto p = w.paddock({"run", "--", "/bin/sh", "-c", two_level_daemon(w, marker) + "echo STARTED"}, o);
  EXPECT_FALSE(p.timed_out) << "the run did not end with its command\n" << describe(p);
  ASSERT_EQ(p.code, 0) << describe(p);
  ASSERT_TRUE(contains(p.out, "STARTED")) << describe(p);
  // paddock returned: nothing of the sandbox may be alive now, not even for a moment.
  std::vector<pid_t> left = survivors(marker, true);
  EXPECT_TRUE(left.empty()) << left.size() << " sandboxed processes alive after the run ended: "
                            << read_file("/proc/" + std::to_string(left.empty() ? 0 : left[0]) + "/cmdline");
  for (pid_t pid : wait_until_gone(marker, false, 0s)) kill(pid, SIGKILL);
}

TEST(Fallback, DaemonDiesWhenPaddockIsKilled) {
  REQUIRE_FALLBACK();
  World w;
  std::string marker = "fb-kill9-" + std::to_string(getpid());
  RunOpts o = fallback_opts(w);
  Started s = start({paddock_bin(), "run", "--", "/bin/sh", "-c",
                     two_level_daemon(w, marker) + "echo STARTED; " + w.probe + " sleep 60 " + marker},
                    o);
  ASSERT_TRUE(s.wait_for_out("STARTED", 60s)) << "sandbox did not start";
  ASSERT_GE(survivors(marker, true).size(), 3u) << "the daemons are not running";
  kill(s.pid(), SIGKILL);
  Proc p = s.finish(30s);
  EXPECT_EQ(p.code, 128 + SIGKILL) << describe(p);
  // The init (paddock's copy) gets its parent-death signal, kills everything below it and dies:
  // nothing with the marker may remain, the init included.
  std::vector<pid_t> left = wait_until_gone(marker, false, 30s);
  EXPECT_TRUE(left.empty()) << left.size() << " sandboxed processes survived kill -9 of paddock: "
                            << read_file("/proc/" + std::to_string(left.empty() ? 0 : left[0]) + "/cmdline");
  for (pid_t pid : left) kill(pid, SIGKILL);
}

// A timeout ends with SIGKILL: paddock asks the init to sweep instead of killing it outright,
// which would orphan the daemons to the host.
TEST(Fallback, DaemonDiesWhenTheRunTimesOut) {
  REQUIRE_FALLBACK();
  World w;
  std::string marker = "fb-timeout-" + std::to_string(getpid());
  RunOpts o = fallback_opts(w);
  auto p = w.paddock({"run", "--timeout", "1s", "--", "/bin/sh", "-c",
                      "trap '' TERM; " + two_level_daemon(w, marker) + "echo STARTED; " + w.probe + " ignore-term-sleep 600 " +
                          marker},
                     o);
  ASSERT_TRUE(contains(p.out, "STARTED")) << describe(p);
  EXPECT_NE(p.code, 0) << describe(p);
  std::vector<pid_t> left = survivors(marker, true);
  EXPECT_TRUE(left.empty()) << left.size() << " sandboxed processes alive after the run timed out: "
                            << read_file("/proc/" + std::to_string(left.empty() ? 0 : left[0]) + "/cmdline");
  for (pid_t pid : wait_until_gone(marker, false, 0s)) kill(pid, SIGKILL);
}

// The daemons' sweeper must be out of the command's reach: the command is in a Landlock domain
// the init is not in, and Landlock ABI 6 scopes signals to the domain.
TEST(Fallback, CommandCannotKillItsInit) {
  REQUIRE_FALLBACK();
  if (landlock_abi() < 6) GTEST_SKIP() << "Landlock ABI " << landlock_abi() << " has no signal scoping (ABI 6)";
  World w;
  std::string marker = "fb-init-" + std::to_string(getpid());
  RunOpts o = fallback_opts(w);
  o.timeout = 90s;
  // $PPID of the command's shell is the sandbox's init; paddock is its parent.
  auto p = w.paddock({"run", "--", "/bin/sh", "-c",
                      two_level_daemon(w, marker) + w.probe + " kill $PPID 9; " + w.probe +
                          " kill $(awk '/^PPid:/{print $2}' /proc/$PPID/status) 9; echo DONE"},
                     o);
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(contains(p.out, "DENIED EPERM kill\nDENIED EPERM kill\nDONE\n")) << describe(p);
  // The init survived, so it swept the daemons.
  std::vector<pid_t> left = survivors(marker, true);
  EXPECT_TRUE(left.empty()) << left.size() << " sandboxed processes alive after the run ended";
  for (pid_t pid : wait_until_gone(marker, false, 0s)) kill(pid, SIGKILL);
}

// --- item 4: the host's /dev/shm ----------------------------------------------------------------

// The fallback's private HOME and /tmp (/tmp/paddock-XXXXXX on the host) go with the run, however
// the command left them (issue 25): a directory it made unusable (chmod 000) and a tree deeper
// than PATH_MAX and than the descriptor limit included.
TEST(Fallback, PrivateDirectoriesAreRemovedWhateverTheCommandLeft) {
  REQUIRE_FALLBACK();
  World w;
  const std::string script =
      "echo \"DIR=$HOME\"; mkdir -p \"$HOME/a/b\" \"$TMPDIR/c\" && echo x > \"$HOME/a/b/f\" && "
      "chmod 000 \"$HOME/a/b\" \"$HOME/a\" \"$TMPDIR/c\"; "
      "mkdir \"$TMPDIR/deep\" && /usr/bin/python3 -c 'import os\nos.chdir(os.environ[\"TMPDIR\"] + \"/deep\")\n"
      "for i in range(3000): os.mkdir(\"d\"); os.chdir(\"d\")\nprint(\"DEPTH=3000\")' && chmod 000 \"$TMPDIR/deep\"";
  if (!exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 to build the deep tree with";
  auto p = w.paddock({"run", "--", "/bin/sh", "-c", script}, fallback_opts(w));
  ASSERT_EQ(p.code, 0) << describe(p);
  ASSERT_TRUE(contains(p.out, "DEPTH=3000")) << describe(p);
  const auto at = p.out.find("DIR=");
  ASSERT_NE(at, std::string::npos) << describe(p);
  const std::string home = p.out.substr(at + 4, p.out.find('\n', at) - at - 4);
  const std::string dir = home.substr(0, home.rfind('/'));
  ASSERT_EQ(dir.rfind("/tmp/paddock-", 0), 0u) << "not the fallback's private directory: " << dir;
  EXPECT_FALSE(exists(dir)) << dir << " survived the run";
  if (exists(dir)) (void)paddock::sys::remove_tree(dir);
}

TEST(Fallback, HostDevShmIsOutOfReach) {
  REQUIRE_FALLBACK();
  struct stat st;
  if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode)) GTEST_SKIP() << "this host has no /dev/shm";
  World w;
  RunOpts o = fallback_opts(w);
  const std::string name = "paddock-kt-shm-" + std::to_string(getpid());
  const std::string host = "/dev/shm/" + name;
  auto p = w.paddock({"run", "--", w.probe, "write", host, "from-the-sandbox"}, o);
  EXPECT_EQ(p.code, 1) << describe(p);
  EXPECT_TRUE(contains(p.out, "DENIED EACCES " + host)) << describe(p);
  EXPECT_FALSE(exists(host)) << "a file the sandbox wrote to /dev/shm is on the host";
  // Reading what the user's other processes keep there is refused too. (Its names stay
  // listable, as every directory's are in the fallback: a stated information leak.)
  write_file(host, World::kSecret, 0644);
  auto r = w.paddock({"run", "--", "/bin/sh", "-c", "cat " + host + "; echo END"}, o);
  EXPECT_TRUE(contains(r.out, "END")) << describe(r);
  EXPECT_FALSE(contains(r.out, World::kSecret)) << describe(r);
  ::unlink(host.c_str());
  // Granted explicitly, it is the host's (the user asked for it).
  auto g = w.paddock({"run", "--allow", "/dev/shm", "--", w.probe, "write", host, "granted"}, o);
  EXPECT_EQ(g.code, 0) << describe(g);
  EXPECT_EQ(read_file(host), "granted");
  ::unlink(host.c_str());
}

// Metadata of read-only paths (issue 17, item 3): Landlock does not cover mode, owner, times or
// extended attributes. Every way the sandbox may name the file — path, descriptor, a symlink in
// the project, /proc/self/fd, a directory descriptor — must leave the host's file as it was,
// while the same changes in the project work.
TEST(Fallback, MetadataOfReadOnlyPathsStaysTheHosts) {
  REQUIRE_FALLBACK();
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  World w;
  const std::string docs = w.home + "/docs";
  const std::string ro = docs + "/keep.txt";
  write_file(ro, "keep", 0644);
  ASSERT_EQ(symlink(ro.c_str(), (w.project + "/link").c_str()), 0);
  write_file(w.project + "/mine.txt", "mine", 0644);
  struct stat before;
  ASSERT_EQ(stat(ro.c_str(), &before), 0);
  // Each attempt prints NAME OK or NAME <errno name>.
  const std::string script = R"(
import errno, os, sys
ro, mine = sys.argv[1], sys.argv[2]
def t(name, f):
    try:
        f(); print(name, "OK")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
uid, gid = os.getuid(), os.getgid()
for label, target in (("ro", ro), ("link", "link"), ("mine", mine)):
    t(label + "-chmod", lambda: os.chmod(target, 0o600))
    t(label + "-chown", lambda: os.chown(target, uid, gid))
    t(label + "-utime", lambda: os.utime(target, (1, 1)))
    t(label + "-setxattr", lambda: os.setxattr(target, "user.paddock", b"1"))
fd = os.open(ro, os.O_RDONLY)
t("fd-fchmod", lambda: os.fchmod(fd, 0o600))
t("fd-futimens", lambda: os.utime(fd, (1, 1)))
t("fd-fsetxattr", lambda: os.setxattr(fd, "user.paddock", b"1"))
t("proc-chmod", lambda: os.chmod("/proc/self/fd/%d" % fd, 0o600))
d = os.open(os.path.dirname(ro), os.O_RDONLY | os.O_DIRECTORY)
t("dirfd-chmod", lambda: os.chmod(os.path.basename(ro), 0o600, dir_fd=d))
)";
  auto p = w.paddock({"run", "--read", docs, "--", "/usr/bin/python3", "-c", script, ro, w.project + "/mine.txt"},
                     fallback_opts(w));
  ASSERT_EQ(p.code, 0) << describe(p);
  for (const char* name : {"ro-chmod", "ro-chown", "ro-utime", "ro-setxattr", "link-chmod", "link-chown", "link-utime",
                           "link-setxattr", "fd-fchmod", "fd-futimens", "fd-fsetxattr", "proc-chmod", "dirfd-chmod"})
    EXPECT_TRUE(contains(p.out, std::string(name) + " EACCES\n")) << name << "\n" << describe(p);
  for (const char* name : {"mine-chmod", "mine-chown", "mine-utime"})
    EXPECT_TRUE(contains(p.out, std::string(name) + " OK\n")) << name << "\n" << describe(p);
  struct stat after;
  ASSERT_EQ(stat(ro.c_str(), &after), 0);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_ctim.tv_sec, before.st_ctim.tv_sec);
  EXPECT_EQ(after.st_ctim.tv_nsec, before.st_ctim.tv_nsec) << "the host file's inode changed";
  struct stat mine;
  ASSERT_EQ(stat((w.project + "/mine.txt").c_str(), &mine), 0);
  EXPECT_EQ(mine.st_mode & 0777, 0600u);
}

// Host unix sockets (issue 17, item 1): a stream server and a datagram socket of the host's,
// outside everything the policy grants, are reachable by path without namespaces. The sandbox can
// create no AF_UNIX socket and no datagram pair; stream pairs still work.
TEST(Fallback, HostUnixSocketsAreOutOfReach) {
  REQUIRE_FALLBACK();
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  World w;
  const std::string stream_path = w.root / "host-stream.sock";
  const std::string dgram_path = w.root / "host-dgram.sock";
  auto bind_unix = [](int type, const std::string& path) {
    int fd = ::socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << path;
    ::chmod(path.c_str(), 0777);
    return fd;
  };
  int server = bind_unix(SOCK_STREAM, stream_path);
  ASSERT_EQ(::listen(server, 8), 0);
  int dgram = bind_unix(SOCK_DGRAM, dgram_path);
  ::chmod(w.root.path().c_str(), 0755);
  const std::string script = R"(
import errno, socket, sys
def t(name, f):
    try:
        f(); print(name, "OK")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
def stream():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1])
def dgram():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"x", sys.argv[2])
def pair_dgram():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"x", sys.argv[2])
def pair_stream():
    a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
t("stream", stream)
t("dgram", dgram)
t("pair-dgram", pair_dgram)
t("pair-stream", pair_stream)
)";
  // The control: the same client on the host reaches both.
  auto control = run({"/usr/bin/python3", "-c", script, stream_path, dgram_path});
  ASSERT_TRUE(contains(control.out, "stream OK\n") && contains(control.out, "dgram OK\n")) << describe(control);
  char buf[8];
  while (::recv(dgram, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
  auto p = w.paddock({"run", "--", "/usr/bin/python3", "-c", script, stream_path, dgram_path}, fallback_opts(w));
  EXPECT_TRUE(contains(p.out, "stream EACCES\n")) << describe(p);
  EXPECT_TRUE(contains(p.out, "dgram EACCES\n")) << describe(p);
  EXPECT_TRUE(contains(p.out, "pair-dgram EACCES\n")) << describe(p);
  EXPECT_TRUE(contains(p.out, "pair-stream OK\n")) << describe(p);
  // Nothing arrived on the host's sockets.
  EXPECT_LT(::recv(dgram, buf, sizeof buf, MSG_DONTWAIT), 0);
  ::fcntl(server, F_SETFL, O_NONBLOCK);
  int c = ::accept(server, nullptr, nullptr);
  // The control's connection is queued; any second one would be the sandbox's.
  if (c >= 0) ::close(c);
  EXPECT_LT(::accept(server, nullptr, nullptr), 0) << "the sandbox connected to the host's socket";
  ::close(server);
  ::close(dgram);
}

}  // namespace
}  // namespace ktest

namespace ktest {
namespace {

// --- what the fallback cannot close: said one line each, and refusable -------------------------

const std::vector<std::string> kAlwaysMissing = {"no private /proc", "no private /tmp", "host directory names listable",
                                                 "host /sys",        "host SysV IPC",   "no pid namespace"};

// Each gap on stderr (one line each), in the report (isolation_gaps, same order) and named in the
// footer; protected files are named when the project has some.
TEST(Fallback, SaysEveryMissingProtectionOnStderrInTheReportAndTheFooter) {
  REQUIRE_FALLBACK();
  World w;
  RunOpts o = fallback_opts(w);
  ::mkdir((w.project + "/.git").c_str(), 0755);
  ::mkdir((w.project + "/.git/hooks").c_str(), 0755);
  TempDir out("paddock-kt-report");
  auto p = w.paddock({"run", "--report", out / "r.json", "--", "/bin/sh", "-c", "exit 3"}, o);
  ASSERT_EQ(p.code, 3) << describe(p);
  auto report = nlohmann::json::parse(read_file(out / "r.json"));
  std::vector<std::string> names;
  for (const auto& g : report["isolation_gaps"]) {
    names.push_back(g["name"]);
    const std::string line = "[paddock] warning: fallback: " + g["name"].get<std::string>() + " — " +
                              g["consequence"].get<std::string>() + "\n";
    EXPECT_TRUE(contains(p.err, line)) << line << describe(p);
  }
  for (const std::string& n : kAlwaysMissing)
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n << " missing from the report";
  EXPECT_NE(std::find(names.begin(), names.end(), "protected files writable during the run"), names.end());
  // What the broker closes (Fallback.HostUnixSocketsAreOutOfReach, Fallback.MetadataOfReadOnlyPaths...)
  // is not announced as missing.
  for (const char* closed : {"host unix sockets reachable", "read-only paths' metadata"})
    EXPECT_EQ(std::find(names.begin(), names.end(), closed), names.end()) << closed << "\n" << describe(p);
  EXPECT_TRUE(contains(p.err, "require_namespaces = true refuses instead")) << describe(p);
  EXPECT_TRUE(contains(p.err, "[paddock]   Isolation: Landlock + seccomp only (no user namespaces), so: no private "
                              "/proc; ")) << describe(p);
  // The consequences are true: the host's processes are listed; with --exec (no paddock left to
  // broker it) a --read file's mode changes, and that run says so.
  auto seen = w.paddock({"run", "--", "/bin/sh", "-c", "test -d /proc/" + std::to_string(getpid()) + " && echo HOSTPID"}, o);
  EXPECT_TRUE(contains(seen.out, "HOSTPID")) << describe(seen);
  TempDir rodir("paddock-kt-ro");
  const std::string ro = rodir / "ro.txt";
  write_file(ro, "x", 0644);
  auto exec = w.paddock({"run", "--exec", "--read", ro, "--", w.probe, "chmod", ro, "600"}, o);
  EXPECT_TRUE(contains(exec.err, "[paddock] warning: fallback: read-only paths' metadata — --exec leaves no paddock "
                                 "to check chmod"))
      << describe(exec);
  struct stat st;
  ASSERT_EQ(::stat(ro.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "the chmod --exec says it lets through did not happen\n" << describe(exec);
  // With namespaces nothing is missing.
  if (user_namespaces_work()) {
    auto ns = w.paddock({"run", "--report", out / "n.json", "--", "/bin/true"}, w.opts());
    ASSERT_EQ(ns.code, 0) << describe(ns);
    EXPECT_EQ(nlohmann::json::parse(read_file(out / "n.json"))["isolation_gaps"], nlohmann::json::array());
    EXPECT_FALSE(contains(ns.err, "fallback:")) << describe(ns);
  }
}

// `doctor` lists the same gaps, in text and JSON, when the fallback is what `run` would use.
TEST(Fallback, DoctorListsTheSameGaps) {
  REQUIRE_FALLBACK();
  World w;
  RunOpts o = fallback_opts(w);
  auto j = w.paddock({"doctor", "--json"}, o);
  ASSERT_EQ(j.code, 0) << describe(j);
  auto doc = nlohmann::json::parse(j.out);
  auto text = w.paddock({"doctor"}, o);
  ASSERT_FALSE(doc["isolation_gaps"].empty()) << j.out;
  for (const auto& g : doc["isolation_gaps"]) {
    const std::string line = "    - " + g["name"].get<std::string>() + " — " + g["consequence"].get<std::string>() + "\n";
    EXPECT_TRUE(contains(text.out, line)) << line << describe(text);
  }
  EXPECT_TRUE(contains(text.out, "refuse instead: --require-namespaces, or [sandbox] require_namespaces = true"))
      << describe(text);
  // AppArmor's part follows the host: on one that does not restrict user namespaces (the CI's
  // Debian) there is nothing to fix and doctor offers nothing.
  const bool restricted = exists("/sys/kernel/security/apparmor") &&
                          read_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1\n";
  EXPECT_EQ(doc["apparmor"]["restricts_userns"], restricted) << j.out;
  if (!restricted) {
    EXPECT_EQ(doc["apparmor"]["fix"], nullptr) << j.out;
    EXPECT_FALSE(contains(text.out, "get namespaces back")) << describe(text);
  }
}

// Refusing instead: the flag and the profile setting each stop the run before anything runs, with
// the same message and exit code 125, and nothing reaches the project.
TEST(Fallback, RequireNamespacesFromAProfileRefuses) {
  REQUIRE_FALLBACK();
  World w;
  RunOpts o = fallback_opts(w);
  TempDir prof("paddock-kt-profile");
  write_file(prof / "strict.toml", "[sandbox]\nrequire_namespaces = true\n", 0644);
  const std::string marker = w.project + "/never";
  auto by_profile = w.paddock({"run", "--profile", prof / "strict.toml", "--", w.probe, "write", marker, "x"}, o);
  auto by_flag = w.paddock({"run", "--require-namespaces", "--", w.probe, "write", marker, "x"}, o);
  auto by_exec = w.paddock({"run", "--exec", "--profile", prof / "strict.toml", "--", w.probe, "write", marker, "x"}, o);
  for (const Proc* p : {&by_profile, &by_flag, &by_exec}) {
    EXPECT_EQ(p->code, 125) << describe(*p);
    EXPECT_TRUE(contains(p->err, "paddock: namespaces: refusing to run without user namespaces, which are unavailable here: the "
                                 "policy requires them (--require-namespaces, or [sandbox] require_namespaces = true "
                                 "in the profile)"))
        << describe(*p);
    EXPECT_FALSE(contains(p->err, "fallback:")) << describe(*p);
  }
  EXPECT_FALSE(exists(marker)) << "the command ran although namespaces were required";
  // The same profile with namespaces available runs.
  if (user_namespaces_work()) {
    auto ok = w.paddock({"run", "--profile", prof / "strict.toml", "--", w.probe, "write", marker, "x"}, w.opts());
    EXPECT_EQ(ok.code, 0) << describe(ok);
  }
}

// The gaps that are not closed here are real, each tried from inside and seen on the host, and
// each is announced by its exact line in the same run: the host's SysV shared memory is readable,
// the real HOME's names are listed (not its contents), the host's /sys names too. A host unix
// socket, closed by the broker, stays out of reach and is not announced.
TEST(Fallback, StatedGapsAreRealAndAnnounced) {
  REQUIRE_FALLBACK();
  World w;
  RunOpts o = fallback_opts(w);
  TempDir other("paddock-kt-gaps");
  const std::string sock = other / "service.sock";
  int ls = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(ls, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock.c_str());
  ASSERT_EQ(::bind(ls, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(::listen(ls, 4), 0);
  int shmid = ::shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  ASSERT_GE(shmid, 0);
  void* mem = ::shmat(shmid, nullptr, 0);
  ASSERT_NE(mem, reinterpret_cast<void*>(-1));
  std::snprintf(static_cast<char*>(mem), 64, "%s", World::kSecret);
  const std::string planted = "planted-name-" + std::to_string(getpid());
  write_file(w.home + "/" + planted, World::kSecret, 0600);
  // The SysV read goes through python3's ctypes when there is a python3 (Debian's CI has one).
  const std::string shm_read =
      "if command -v python3 >/dev/null; then python3 -c 'import ctypes; l=ctypes.CDLL(None); "
      "l.shmat.restype=ctypes.c_void_p; p=l.shmat(" + std::to_string(shmid) + ", None, 0); "
      "print(\"SHM\", ctypes.string_at(p) if p not in (None, 2**64-1) else \"refused\")'; else echo SHM-NO-PYTHON; fi";
  auto p = w.paddock({"run", "--", "/bin/sh", "-c",
                      w.probe + " connect-unix " + sock + "; " + shm_read + "; ls -A " + w.home + "; cat " + w.home +
                          "/" + planted + "; ls /sys; echo END"},
                     o);
  ::shmdt(mem);
  ::shmctl(shmid, IPC_RMID, nullptr);
  ASSERT_TRUE(contains(p.out, "END")) << describe(p);
  // unix socket: refused, the host's listener saw nothing, and no line claims otherwise.
  EXPECT_TRUE(contains(p.out, "DENIED EACCES socket")) << describe(p);
  ::fcntl(ls, F_SETFL, O_NONBLOCK);
  int c = ::accept(ls, nullptr, nullptr);
  EXPECT_LT(c, 0) << "the host socket got a connection from the sandbox";
  if (c >= 0) ::close(c);
  ::close(ls);
  EXPECT_FALSE(contains(p.err, "host unix sockets reachable")) << describe(p);
  // SysV shared memory of the host: read.
  if (!contains(p.out, "SHM-NO-PYTHON"))
    EXPECT_TRUE(contains(p.out, std::string("SHM b'") + World::kSecret)) << describe(p);
  EXPECT_TRUE(contains(p.err, "[paddock] warning: fallback: host SysV IPC — ")) << describe(p);
  // The real HOME's names listed, its contents not.
  EXPECT_TRUE(contains(p.out, planted + "\n")) << describe(p);
  std::size_t secrets = 0;
  for (auto at = p.out.find(World::kSecret); at != std::string::npos; at = p.out.find(World::kSecret, at + 1)) ++secrets;
  EXPECT_EQ(secrets, contains(p.out, "SHM-NO-PYTHON") ? 0u : 1u) << "the planted file's contents were read\n" << describe(p);
  EXPECT_TRUE(contains(p.err, "[paddock] warning: fallback: host directory names listable — ")) << describe(p);
  // /sys names.
  EXPECT_TRUE(contains(p.out, "kernel\n")) << describe(p);
  EXPECT_TRUE(contains(p.err, "[paddock] warning: fallback: host /sys — the host's /sys names are listable"))
      << describe(p);
}

}  // namespace
}  // namespace ktest
