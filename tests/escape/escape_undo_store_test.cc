// The undo store ($XDG_STATE_HOME/paddock/undo) is unreachable from inside a sandbox, even with
// `--allow ~` or `--allow ~/.local/state` (issue 14): it cannot be listed, read or written, and
// naming it is refused. Checked on the host afterwards. As root and unprivileged.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

TEST(EscapeUndoStore, UnreachableUnderAllowHome) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/f", "1");
  // A real session, so the store has content worth stealing or spoiling.
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "echo 2 > f"}, w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string state = w.home + "/.local/state/paddock";
  const std::string store = state + "/undo";
  const std::string version = read_file(store + "/VERSION");
  ASSERT_FALSE(version.empty());
  for (const std::string grant : {"~", "~/.local", "~/.local/state"}) {
    SCOPED_TRACE(grant);
    const std::string script =
        "ls -a " + store + " 2>/dev/null; cat " + store + "/VERSION 2>/dev/null; ls " + store + "/sessions 2>/dev/null;"
        "echo planted > " + store + "/VERSION 2>/dev/null; mkdir -p " + store + "/sessions/x 2>/dev/null;"
        "rm -rf " + store + "/objects 2>/dev/null; touch " + state + "/mine 2>/dev/null; "
        "mv " + state + " " + w.home + "/.local/state/moved 2>/dev/null; true";
    Proc p = w.paddock({"run", "--allow", grant, "--", "sh", "-c", script}, w.state_opts());
    EXPECT_EQ(p.code, 0) << describe(p);
    EXPECT_FALSE(contains(p.out, "paddock-undo-store")) << describe(p);
    EXPECT_FALSE(contains(p.out, "objects")) << describe(p);
    EXPECT_EQ(read_file(store + "/VERSION"), version);
    EXPECT_TRUE(exists(store + "/objects"));
    EXPECT_FALSE(exists(store + "/sessions/x"));
    EXPECT_FALSE(exists(state + "/mine"));
    EXPECT_FALSE(exists(w.home + "/.local/state/moved"));
  }
  // The store still works.
  Proc rs = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  EXPECT_EQ(rs.code, 0) << describe(rs);
  EXPECT_EQ(read_file(w.project + "/f"), "1");
}

TEST(EscapeUndoStore, NamingItIsRefusedAndWhySaysSo) {
  KTEST_REQUIRE_BINARIES();
  World w;
  make_dirs(w.home + "/.local/state/paddock/undo");
  for (const char* flag : {"--read", "--allow", "--write"}) {
    Proc p = w.paddock({"run", flag, "~/.local/state/paddock/undo", "--", "true"}, w.state_opts());
    EXPECT_EQ(p.code, 2) << describe(p);
    EXPECT_TRUE(contains(p.err, "paddock's own state")) << describe(p);
  }
  Proc why = w.paddock({"why", "--allow", "~", "--path", "~/.local/state/paddock/undo/VERSION"}, w.state_opts());
  EXPECT_TRUE(contains(why.out + why.err, "paddock's own state")) << describe(why);
}

// The checkpoint channel (undo/checkpoint.h) lets the sandbox ask for a snapshot and nothing
// else: requests that are not a checkpoint, descriptors passed along, and attempts to remove or
// replace the socket change nothing on the host; the store holds exactly the asked-for snapshots.
TEST(EscapeUndoStore, TheCheckpointChannelOnlyAsks) {
  KTEST_REQUIRE_BINARIES();
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 is missing (scripts/setup.sh installs it)";
  World w;
  write_file(w.project + "/f", "1");
  write_file(w.project + "/host-file", "untouched\n");
  const std::string store = w.home + "/.local/state/paddock/undo";
  // Python inside: what a hostile command can send on both doors.
  const std::string py = R"PY(
import os, socket, array
def ask(data, fds=()):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/.paddock/checkpoint")
    if fds:
        s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        s.send(data)
    s.settimeout(10)
    try:
        print("answer:", s.recv(512))
    except Exception as e:
        print("no answer:", e)
for data in [b"restore 0", b"prune --keep 0", b"paddock-checkpoint 2\nx", b"paddock-checkpoint 1\n" + b"x" * 5000,
             b"paddock-checkpoint 1\n\x1b]0;owned\x07", b"\x00" * 64]:
    ask(data)
hf = os.open("host-file", os.O_RDWR)
ask(b"paddock-checkpoint 1\n../../sessions/evil", [hf])
# The inherited door: a reply descriptor that is the project file, then two descriptors.
fd = int(os.environ["PADDOCK_CHECKPOINT_FD"])
ch = socket.socket(fileno=os.dup(fd))
ch.sendmsg([b"paddock-checkpoint 1\nvia file"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [hf]))])
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
c, d = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
ch.sendmsg([b"paddock-checkpoint 1\ntwo fds"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [b.fileno(), d.fileno()]))])
for path in ["/.paddock/checkpoint", "/.paddock"]:
    for op in (os.unlink, lambda p: os.rename(p, p + ".x"), lambda p: os.symlink("/", p)):
        try:
            op(path); print("CHANGED", path)
        except OSError as e:
            pass
print("done")
)PY";
  write_file(w.project + "/hostile.py", py);
  Proc r = w.paddock({"run", "--undo", "--allow", "~", "--", "python3", "hostile.py"}, w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "done")) << describe(r);
  EXPECT_FALSE(contains(r.out, "CHANGED")) << describe(r);
  // Only the one well-formed request is answered "ok" (the descriptor sent with it is dropped).
  std::size_t oks = 0;
  for (const auto& l : split_lines(r.out)) oks += contains(l, "answer: b'ok") ? 1 : 0;
  EXPECT_EQ(oks, 1u) << describe(r);
  EXPECT_EQ(read_file(w.project + "/host-file"), "untouched\n");
  // One session; its snapshots: before, the one well-formed request (its label is only a label),
  // after. Nothing named by a label exists in the store.
  Proc list = w.paddock({"undo", "list", "--json"}, w.state_opts());
  ASSERT_EQ(list.code, 0) << describe(list);
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = list.out.find(needle); at != std::string::npos; at = list.out.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"label\""), 3u) << describe(list);
  EXPECT_TRUE(contains(list.out, "../../sessions/evil")) << describe(list);
  EXPECT_FALSE(contains(list.out, "via file")) << describe(list);
  EXPECT_FALSE(contains(list.out, "two fds")) << describe(list);
  EXPECT_FALSE(exists(store + "/evil"));
  EXPECT_FALSE(exists(store + "/sessions/evil"));
  EXPECT_EQ(count("\"id\""), 1u) << describe(list);
}

// Bytes of the files under DIR.
std::uint64_t bytes_under(const std::string& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); it != std::filesystem::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  return total;
}

// Issue 25, class 11: checkpoints asked for from inside each store what changed since the one
// before. Twenty of a 4 MiB file changed by one byte stored 80 MiB while the session said "0
// changes". The checkpoints of a run may add at most its budget (here 16 MiB) to the store; past
// it they are refused, and the run's last lines and `undo list` say so and how much was stored.
TEST(EscapeUndoStore, CheckpointsCannotInflateTheStore) {
  KTEST_REQUIRE_BINARIES();
  // The flag with namespaces; the profile's key in the fallback (the descriptor door only).
  for (const bool from_profile : {false, true}) {
    SCOPED_TRACE(from_profile ? "[undo] max_bytes, fallback" : "--undo-max-bytes, namespaces");
    if (from_profile && landlock_abi() < 1) continue;  // the fallback refuses to run without Landlock
    World w;
    write_file(w.project + "/f", "1");
    make_dirs(w.project + "/.pdk");
    write_file(w.project + "/.pdk/paddock", read_file(paddock_bin()), 0755);
    const std::string objects = w.home + "/.local/state/paddock/undo/objects";
    std::vector<std::string> flags = {"run", "--undo", "--undo-exclude", ".pdk"};
    if (from_profile) {
      write_file(w.home + "/.config/paddock/profiles/budget.toml", "[undo]\nmax_bytes = \"16M\"\n");
      flags.insert(flags.end(), {"--profile", "budget"});
    } else {
      flags.insert(flags.end(), {"--undo-max-bytes", "16M"});
    }
    flags.insert(flags.end(), {"--", "sh", "-c",
                               "head -c 4194304 /dev/urandom > big && for i in $(seq 1 20); do "
                               "printf \"$i\" | dd of=big bs=1 seek=0 conv=notrunc 2>/dev/null; "
                               ".pdk/paddock checkpoint turn $i >/dev/null 2>&1; echo rc$i=$?; done; rm big"});
    RunOpts o = w.state_opts();
    if (from_profile) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    Proc r = w.paddock(flags, o);
    ASSERT_EQ(r.code, 0) << describe(r);
    // The first snapshot holds the project (the probe's copy, "f"); the checkpoints at most 16 MiB
    // (one more file is read, not kept).
    const std::uint64_t stored = bytes_under(objects) - std::filesystem::file_size(w.probe);
    EXPECT_LE(stored, (16u << 20) + (64u << 10)) << describe(r);
    EXPECT_GE(stored, 12u << 20) << "the checkpoints before the budget must be kept\n" << describe(r);
    EXPECT_TRUE(contains(r.out, "rc1=0")) << describe(r);
    EXPECT_TRUE(contains(r.out, "rc20=1")) << describe(r);
    EXPECT_TRUE(contains(r.err, "undo: session ")) << describe(r);
    EXPECT_TRUE(contains(r.err, " stored after the first snapshot")) << describe(r);
    EXPECT_TRUE(contains(r.err, "checkpoints were refused")) << describe(r);
    EXPECT_TRUE(contains(r.err, "undo budget of 16M")) << describe(r);
    Proc list = w.paddock({"undo", "list"}, w.state_opts());
    ASSERT_EQ(list.code, 0) << describe(list);
    EXPECT_TRUE(contains(list.out, "checkpoints were refused")) << describe(list);
    Proc show = w.paddock({"undo", "show"}, w.state_opts());
    EXPECT_TRUE(contains(show.out, "checkpoints were refused")) << describe(show);
  }
}

// Root's system-wide state (/var/lib/paddock: root's jails, their runtime.json that paddock reads
// back) is out of reach of root's sandboxes too, even under `--allow /var`.
TEST(EscapeUndoStore, RootsSystemStateUnreachableUnderAllowVar) {
  KTEST_REQUIRE_BINARIES();
  if (::geteuid() != 0) GTEST_SKIP() << "/var/lib/paddock is root's state; an unprivileged run has its own (tested above)";
  World w;
  const std::string dir = "/var/lib/paddock/kt-escape-" + std::to_string(::getpid());
  make_dirs(dir);
  write_file(dir + "/runtime.json", "{\"kept\": true}\n");
  struct Cleanup {
    std::string d;
    ~Cleanup() { std::error_code ec; std::filesystem::remove_all(d, ec); }
  } cleanup{dir};
  const std::string script = "cat " + dir + "/runtime.json 2>/dev/null; ls /var/lib/paddock 2>/dev/null; "
                             "echo planted > " + dir + "/runtime.json 2>/dev/null; touch " + dir + "/new 2>/dev/null; "
                             "mv " + dir + " " + dir + ".moved 2>/dev/null; true";
  Proc p = w.paddock({"run", "--allow", "/var", "--", "sh", "-c", script}, w.state_opts());
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(contains(p.out, "kept")) << describe(p);
  EXPECT_FALSE(contains(p.out, "kt-escape")) << describe(p);
  EXPECT_EQ(read_file(dir + "/runtime.json"), "{\"kept\": true}\n");
  EXPECT_FALSE(exists(dir + "/new"));
  EXPECT_FALSE(exists(dir + ".moved"));
  Proc named = w.paddock({"run", "--read", dir, "--", "true"}, w.state_opts());
  EXPECT_EQ(named.code, 2) << describe(named);
  EXPECT_TRUE(contains(named.err, "paddock's own state")) << describe(named);
}

}  // namespace
}  // namespace ktest
