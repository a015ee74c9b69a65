// `paddock run --undo -- sh -c '…'` doing each kind of change, then `paddock undo restore --yes`:
// the tree is exactly as before (issue 14). As root and as the unprivileged user (run-as.sh).
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

namespace fs = std::filesystem;

// path, type, mode, content or target of everything under ROOT except SKIP (the probe copy).
std::string tree(const std::string& root, const std::string& skip_dir = "") {
  std::vector<std::string> lines;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string p = it->path().string();
    if (!skip_dir.empty() && (p == skip_dir || p.rfind(skip_dir + "/", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) continue;
    char mode[16];
    std::snprintf(mode, sizeof(mode), "%06o", static_cast<unsigned>(st.st_mode));
    std::string l = p.substr(root.size()) + " " + mode;
    if (S_ISREG(st.st_mode)) l += " [" + read_file(p) + "]";
    if (S_ISLNK(st.st_mode)) l += " -> " + fs::read_symlink(p).string();
    lines.push_back(l);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (auto& l : lines) out += l + "\n";
  return out;
}

void seed_project(const World& w) {
  write_file(w.project + "/src/main.c", "int main() { return 0; }\n");
  write_file(w.project + "/run.sh", "#!/bin/sh\necho hi\n", 0755);
  write_file(w.project + "/docs/readme.md", "# readme\n");
  make_dirs(w.project + "/empty");
  ASSERT_EQ(::symlink("src/main.c", (w.project + "/link").c_str()), 0);
  write_file(w.project + "/node_modules/dep/index.js", "v1\n");
}

struct Case {
  const char* name;
  const char* script;
};

TEST(Undo, EveryKindOfChangeIsTakenBack) {
  KTEST_REQUIRE_BINARIES();
  const Case cases[] = {
      {"modify", "echo changed > src/main.c"},
      {"add", "mkdir -p new/deep && echo x > new/deep/file && echo y > added"},
      {"delete file", "rm src/main.c"},
      {"delete tree", "rm -rf docs"},
      {"delete empty dir", "rmdir empty"},
      {"chmod", "chmod 600 run.sh && chmod 700 docs"},
      {"symlink retarget", "rm link && ln -s /etc/passwd link"},
      {"file to symlink", "rm src/main.c && ln -s ../run.sh src/main.c"},
      {"dir to symlink", "rm -rf src && ln -s /tmp src"},
      {"rename", "mv docs documents && mv run.sh run2.sh"},
      {"truncate", ": > run.sh"},
      {"all at once",
       "echo c > src/main.c; rm -rf docs; rmdir empty; rm link; ln -s / link; mkdir x; echo y > x/y; chmod 700 run.sh"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    World w;
    seed_project(w);
    const std::string before = tree(w.project, w.probe);
    Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", c.script}, w.state_opts());
    ASSERT_EQ(r.code, 0) << describe(r);
    ASSERT_TRUE(contains(r.err, "undo: session ")) << describe(r);
    ASSERT_NE(tree(w.project, w.probe), before) << "the change did not happen";
    Proc rs = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
    ASSERT_EQ(rs.code, 0) << describe(rs);
    EXPECT_EQ(tree(w.project, w.probe), before);
  }
}

TEST(Undo, ExcludedFilesStayAsTheRunLeftThem) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c",
                      "echo v2 > node_modules/dep/index.js; echo new > node_modules/new.js; echo c > src/main.c"},
                     w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  Proc show = w.paddock({"undo", "show"}, w.state_opts());
  EXPECT_TRUE(contains(show.out, "excluded  any node_modules")) << describe(show);
  Proc rs = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  ASSERT_EQ(rs.code, 0) << describe(rs);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
  EXPECT_EQ(read_file(w.project + "/node_modules/dep/index.js"), "v2\n");
  EXPECT_EQ(read_file(w.project + "/node_modules/new.js"), "new\n");
}

// An agent replaces a directory with a symlink to a place outside the project; the restore
// must recreate the directory and never write through the link.
TEST(Undo, APlantedSymlinkDoesNotRedirectTheRestore) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  TempDir outside;
  const std::string victim = outside.path();
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "rm -rf src && ln -s " + victim + " src"}, w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  Proc rs = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  ASSERT_EQ(rs.code, 0) << describe(rs);
  EXPECT_FALSE(exists(victim + "/main.c"));
  struct stat st;
  ASSERT_EQ(::lstat((w.project + "/src").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
}

TEST(Undo, RestoreAsksOrRefusesAndNamesHostChanges) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "echo agent > src/main.c; echo agent > run.sh"}, w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  // No terminal, no --yes: refused, nothing changed.
  Proc no = w.paddock({"undo", "restore"}, w.state_opts());
  EXPECT_EQ(no.code, 1) << describe(no);
  EXPECT_TRUE(contains(no.err, "without a terminal")) << describe(no);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "agent\n");
  // The user edits a file after the run: the restore would overwrite it, so it refuses.
  write_file(w.project + "/run.sh", "the user's edit\n", 0755);
  Proc conflict = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  EXPECT_EQ(conflict.code, 1) << describe(conflict);
  EXPECT_TRUE(contains(conflict.err, w.project + "/run.sh")) << describe(conflict);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "agent\n");
  Proc dry = w.paddock({"undo", "restore", "--dry-run", "--force"}, w.state_opts());
  EXPECT_EQ(dry.code, 0) << describe(dry);
  EXPECT_TRUE(contains(dry.out, "modified  " + w.project + "/src/main.c")) << describe(dry);
  Proc forced = w.paddock({"undo", "restore", "--yes", "--force"}, w.state_opts());
  ASSERT_EQ(forced.code, 0) << describe(forced);
  EXPECT_EQ(read_file(w.project + "/run.sh"), "#!/bin/sh\necho hi\n");
  // Bad input: clear errors.
  Proc bad = w.paddock({"undo", "restore", "--yes", "20990101-000000-abcd"}, w.state_opts());
  EXPECT_NE(bad.code, 0);
  EXPECT_TRUE(contains(bad.err, "no session")) << describe(bad);
  Proc list = w.paddock({"undo", "list", "--json"}, w.state_opts());
  EXPECT_EQ(list.code, 0);
  EXPECT_TRUE(contains(list.out, "\"snapshots\"")) << describe(list);
}

// A command inside asks for snapshots with `paddock checkpoint` (the channel in undo/checkpoint.h):
// each is a snapshot of the session, restorable on its own. With namespaces and in the fallback.
TEST(Undo, CheckpointsFromInsideAreSnapshotsToReturnTo) {
  KTEST_REQUIRE_BINARIES();
  for (bool fallback : {false, true}) {
    SCOPED_TRACE(fallback ? "fallback (no namespaces)" : "namespaces");
    if (fallback && landlock_abi() < 1) continue;  // the fallback refuses to run without Landlock
    World w;
    seed_project(w);
    // paddock itself, where the sandbox can run it (the build directory may be hidden inside).
    make_dirs(w.project + "/.pdk");
    write_file(w.project + "/.pdk/paddock", read_file(paddock_bin()), 0755);
    RunOpts o = w.state_opts();
    if (fallback) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    Proc r = w.paddock({"run", "--undo", "--undo-exclude", ".pdk", "--", "sh", "-c",
                        "echo turn1 > src/main.c && .pdk/paddock checkpoint after turn 1 && "
                        "echo turn2 > src/main.c && rm run.sh && .pdk/paddock checkpoint 'after turn 2' && "
                        "echo turn3 > src/main.c && "
                        // A program that closed the descriptor: told what happened, not a hang.
                        // bash: dash's redirections take one-digit descriptors only.
                        "bash -c 'eval \"exec $PADDOCK_CHECKPOINT_FD>&-\"; .pdk/paddock checkpoint closed; echo closed=$?' 2>&1; "
                        "(unset PADDOCK_CHECKPOINT_FD; .pdk/paddock checkpoint --if-available none; echo none=$?)"},
                       o);
    ASSERT_EQ(r.code, 0) << describe(r);
    EXPECT_TRUE(contains(r.out, ":1 ")) << describe(r);
    EXPECT_TRUE(contains(r.out, ": after turn 1")) << describe(r);
    EXPECT_TRUE(contains(r.out, ": after turn 2")) << describe(r);
    if (fallback) {
      // The descriptor is the only door without namespaces: closed, it says so.
      EXPECT_TRUE(contains(r.out, "not paddock's checkpoint channel")) << describe(r);
      EXPECT_TRUE(contains(r.out, "closed=1")) << describe(r);
    } else {
      // With namespaces the socket at /.paddock/checkpoint still answers (Node-based agents start
      // their hooks with neither the descriptor nor, for some, the environment variable).
      EXPECT_TRUE(contains(r.out, ": closed")) << describe(r);
      EXPECT_TRUE(contains(r.out, "closed=0")) << describe(r);
      EXPECT_TRUE(contains(r.out, ": none")) << describe(r);
    }
    EXPECT_TRUE(contains(r.out, "none=0")) << describe(r);
    Proc list = w.paddock({"undo", "list"}, o);
    ASSERT_EQ(list.code, 0) << describe(list);
    for (const char* label : {"before run", "after turn 1", "after turn 2", "after run"})
      EXPECT_TRUE(contains(list.out, label)) << label << "\n" << describe(list);
    // The session's id from the run's last line.
    const std::string marker = "undo: session ";
    const auto at = r.err.find(marker);
    ASSERT_NE(at, std::string::npos) << describe(r);
    const std::string id = r.err.substr(at + marker.size(), 20);
    // Back to the first turn's checkpoint (snapshot 1), then to the tree before the run.
    Proc to1 = w.paddock({"undo", "restore", "--yes", id + ":1"}, o);
    ASSERT_EQ(to1.code, 0) << describe(to1);
    EXPECT_EQ(read_file(w.project + "/src/main.c"), "turn1\n");
    EXPECT_TRUE(exists(w.project + "/run.sh"));
    Proc to2 = w.paddock({"undo", "restore", "--yes", id + ":2"}, o);
    ASSERT_EQ(to2.code, 0) << describe(to2);
    EXPECT_EQ(read_file(w.project + "/src/main.c"), "turn2\n");
    EXPECT_FALSE(exists(w.project + "/run.sh"));
    Proc to0 = w.paddock({"undo", "restore", "--yes", id + ":0"}, o);
    ASSERT_EQ(to0.code, 0) << describe(to0);
    EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
    EXPECT_EQ(read_file(w.project + "/run.sh"), "#!/bin/sh\necho hi\n");
  }
  // Outside any run: a clear error, or nothing with --if-available.
  World w;
  RunOpts o = w.state_opts();
  o.unset.push_back("PADDOCK_CHECKPOINT_FD");
  Proc out = w.paddock({"checkpoint", "x"}, o);
  EXPECT_EQ(out.code, 1) << describe(out);
  EXPECT_TRUE(contains(out.err, "not inside a `paddock run --undo`")) << describe(out);
  Proc quiet = w.paddock({"checkpoint", "--if-available", "x"}, o);
  EXPECT_EQ(quiet.code, 0) << describe(quiet);
  EXPECT_EQ(quiet.err, "") << describe(quiet);
}

// A first snapshot that takes more than a second says how far it is (files, bytes, rate) on
// stderr; a quick one says nothing. The second is moved by a test hook, not waited for. Here
// stderr is a pipe, not a terminal: whole lines, at most one every few seconds (a log gets no
// carriage returns and no hundreds of partial lines; issue 29).
TEST(Undo, ProgressOnlyForASlowFirstSnapshot) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (int d = 0; d < 70; ++d)
    for (int f = 0; f < 50; ++f)
      write_file(w.project + "/t/d" + std::to_string(d) + "/f" + std::to_string(f), std::string(512, 'x'));
  RunOpts quick = w.state_opts();
  // A snapshot that ends before the threshold prints nothing. The threshold is set far above the
  // scan: the default second is a timing assumption a loaded machine breaks (3,500 files once
  // took more than a second under a load of 8 on 2 cores).
  quick.env["PADDOCK_UNDO_PROGRESS_AFTER_MS"] = "60000";
  Proc q = w.paddock({"run", "--undo", "--", "true"}, quick);
  ASSERT_EQ(q.code, 0) << describe(q);
  EXPECT_FALSE(contains(q.err, "first snapshot:")) << describe(q);
  RunOpts slow = w.state_opts();
  slow.env["PADDOCK_UNDO_PROGRESS_AFTER_MS"] = "0.001";
  // Another session (a new store) so that this first snapshot reads every file again.
  slow.env["XDG_STATE_HOME"] = w.home + "/other-state";
  Proc s = w.paddock({"run", "--undo", "--", "true"}, slow);
  ASSERT_EQ(s.code, 0) << describe(s);
  EXPECT_TRUE(contains(s.err, "[paddock] undo: first snapshot: ")) << describe(s);
  EXPECT_TRUE(contains(s.err, " files, ")) << describe(s);
  EXPECT_TRUE(contains(s.err, "/s")) << describe(s);
  EXPECT_FALSE(contains(s.err, "\r")) << describe(s);
  // 3,500 files report progress three times; the scan takes well under the few seconds between
  // two lines.
  int lines = 0;
  for (const std::string& l : split_lines(s.err)) lines += contains(l, "undo: first snapshot: ") ? 1 : 0;
  EXPECT_EQ(lines, 1) << describe(s);
}

// Run after run (issue 29): the second run's first snapshot starts from the first run's last one
// (seed.h), reading only what changed since; an edit the host made in between, with its
// timestamps put back, is still seen (ctime), so restoring the second run brings back the host's
// version, not the first run's.
TEST(Undo, TheNextRunStartsFromTheLastAndSeesTheHostsEditsBetween) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (int d = 0; d < 20; ++d)
    for (int f = 0; f < 50; ++f) write_file(w.project + "/t/d" + std::to_string(d) + "/f" + std::to_string(f), "x\n");
  write_file(w.project + "/src/main.c", "original\n");
  write_file(w.project + "/src/keep.c", "host 1\n");
  auto session_of = [](const Proc& p) {
    const auto at = p.err.find("undo: session ");
    return at == std::string::npos ? std::string() : p.err.substr(at + 14, 20);
  };
  Proc first = w.paddock({"run", "--undo", "--", "sh", "-c", "echo one > src/main.c"}, w.state_opts());
  ASSERT_EQ(first.code, 0) << describe(first);
  usleep(50'000);
  // The host's edit: the same size, the mtime put back.
  struct stat st;
  ASSERT_EQ(::stat((w.project + "/src/keep.c").c_str(), &st), 0);
  write_file(w.project + "/src/keep.c", "host 2\n");
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, (w.project + "/src/keep.c").c_str(), times, 0), 0);
  usleep(50'000);
  Proc second = w.paddock({"run", "--undo", "--", "sh", "-c", "echo two > src/main.c; echo run > src/keep.c"},
                          w.state_opts());
  ASSERT_EQ(second.code, 0) << describe(second);
  const std::string id = session_of(second);
  ASSERT_EQ(id.size(), 20u) << describe(second);
  Proc show = w.paddock({"undo", "show", "--json", id}, w.state_opts());
  ASSERT_EQ(show.code, 0) << describe(show);
  // What the first snapshot read: the host's edit (and at most the file the first run changed
  // just before its last snapshot, within the racy window), not the 1,000 others.
  const auto at = show.out.find("\"files_hashed\": ");
  ASSERT_NE(at, std::string::npos) << show.out;
  EXPECT_LE(std::stoi(show.out.substr(at + 16)), 3) << show.out;
  Proc back = w.paddock({"undo", "restore", "--yes", id + ":0"}, w.state_opts());
  ASSERT_EQ(back.code, 0) << describe(back);
  EXPECT_EQ(read_file(w.project + "/src/keep.c"), "host 2\n");
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "one\n");
  // And the first run's restore still works across the two sessions.
  Proc all = w.paddock({"undo", "restore", "--yes", session_of(first) + ":0"}, w.state_opts());
  ASSERT_EQ(all.code, 0) << describe(all);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "original\n");
}

// The store's disk is full: the run goes on, the footer says undo is incomplete and why, the
// store stays readable with nothing half-written in it, and a restore that cannot first save the
// tree as it is refuses and changes nothing. Room again: the restore works.
TEST(Undo, AFullDiskLeavesTheRunWorkingAndTheStoreWhole) {
  KTEST_REQUIRE_BINARIES();
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs for the store needs root";
  World w;
  seed_project(w);
  TempDir state("paddock-kt-fullstate");
  // Room for the project (the probe's copy is most of it) and a little more; not for what the run writes.
  struct stat probe_st;
  ASSERT_EQ(::stat(w.probe.c_str(), &probe_st), 0);
  const long room_kib = probe_st.st_size / 1024 + 1024;
  const std::string size = "size=" + std::to_string(room_kib) + "k,mode=0755";
  ASSERT_EQ(::mount("tmpfs", state.path().c_str(), "tmpfs", 0, size.c_str()), 0) << std::strerror(errno);
  struct Unmount {
    std::string p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{state.path()};
  RunOpts o = w.opts();
  o.env["XDG_STATE_HOME"] = state.path();
  const std::string before = tree(w.project, w.probe);
  // The agent writes more than the store can hold: the last snapshot fails.
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "head -c " + std::to_string(room_kib * 1024) + " /dev/urandom > big.bin && echo ran"}, o);
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "ran")) << describe(r);
  EXPECT_TRUE(contains(r.err, "undo: incomplete: ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "No space left on device")) << describe(r);
  EXPECT_TRUE(contains(r.err, ":0 brings back the tree as it was before the run")) << describe(r);
  // Nothing half-written: the store lists, and its scratch directory is empty.
  Proc list = w.paddock({"undo", "list"}, o);
  EXPECT_EQ(list.code, 0) << describe(list);
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(state.path() + "/paddock/undo/tmp", ec)) << ec.message();
  // Restoring means first saving the tree as it is (big.bin): no room, so it refuses, and the
  // agent's file is still there (nothing lost).
  const std::string marker = "undo: paddock undo restore ";
  const auto at = r.err.find(marker);
  ASSERT_NE(at, std::string::npos) << describe(r);
  const std::string id = r.err.substr(at + marker.size(), 20);
  Proc no_room = w.paddock({"undo", "restore", "--yes", id + ":0"}, o);
  EXPECT_NE(no_room.code, 0) << describe(no_room);
  EXPECT_TRUE(contains(no_room.err, "No space left on device")) << describe(no_room);
  EXPECT_TRUE(exists(w.project + "/big.bin"));
  ASSERT_EQ(::mount("tmpfs", state.path().c_str(), "tmpfs", MS_REMOUNT, ("size=" + std::to_string(room_kib * 4) + "k,mode=0755").c_str()), 0)
      << std::strerror(errno);
  Proc ok = w.paddock({"undo", "restore", "--yes", id + ":0"}, o);
  ASSERT_EQ(ok.code, 0) << describe(ok);
  EXPECT_EQ(tree(w.project, w.probe), before);
}

// Node starts its children with only stdio (the inherited descriptor is gone), as Claude Code and
// pi start their hooks: the socket at /.paddock/checkpoint is found by path and answers.
TEST(Undo, ACheckpointFromAProcessNodeStarted) {
  KTEST_REQUIRE_BINARIES();
  if (::access("/usr/bin/node", X_OK) != 0)
    GTEST_SKIP() << "/usr/bin/node is missing (scripts/test-setup.d/mcp.sh installs it)";
  World w;
  seed_project(w);
  make_dirs(w.project + "/.pdk");
  write_file(w.project + "/.pdk/paddock", read_file(paddock_bin()), 0755);
  Proc n = w.paddock({"run", "--undo", "--undo-exclude", ".pdk", "--", "node", "-e",
                      "const cp = require('child_process');"
                      "cp.execSync('.pdk/paddock checkpoint from node', {stdio: 'inherit'})"},
                     w.state_opts());
  EXPECT_EQ(n.code, 0) << describe(n);
  EXPECT_TRUE(contains(n.out, ": from node")) << describe(n);
}

// A profile's [undo] enables undo and caps the checkpoints one run may take.
TEST(Undo, AProfileEnablesUndoAndCapsCheckpoints) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  make_dirs(w.project + "/.pdk");
  write_file(w.project + "/.pdk/paddock", read_file(paddock_bin()), 0755);
  write_file(w.home + "/.config/paddock/profiles/capped.toml",
             "[undo]\nenabled = true\nmax_checkpoints = 2\nexcludes = [\".pdk\"]\n");
  Proc r = w.paddock({"run", "--profile", "capped", "--", "sh", "-c",
                      "for i in 1 2 3; do echo $i > src/main.c; .pdk/paddock checkpoint turn $i; echo rc$i=$?; done"},
                     w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "rc1=0")) << describe(r);
  EXPECT_TRUE(contains(r.out, "rc2=0")) << describe(r);
  EXPECT_TRUE(contains(r.out, "rc3=1")) << describe(r);
  EXPECT_TRUE(contains(r.err + r.out, "the most one run may take")) << describe(r);
  EXPECT_TRUE(contains(r.err, "undo: session ")) << describe(r);
}

// A restore never writes a set-id bit nor makes a FIFO (issue 25): the user's own set-uid file
// and FIFO, removed by the run, come back without the bit and not at all, and both are said.
TEST(Undo, SetIdBitsAndFifosAreNeverRestored) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/tool", "#!/bin/sh\necho tool\n", 0755);
  ASSERT_EQ(::chmod((w.project + "/tool").c_str(), 04755), 0);
  ASSERT_EQ(::mkfifo((w.project + "/pipe").c_str(), 0644), 0);
  Proc r = w.paddock({"run", "--undo", "--", "rm", "tool", "pipe"}, w.state_opts());
  ASSERT_EQ(r.code, 0) << describe(r);
  ASSERT_FALSE(exists(w.project + "/tool"));
  Proc rs = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  ASSERT_EQ(rs.code, 0) << describe(rs);
  struct stat st;
  ASSERT_EQ(::lstat((w.project + "/tool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(read_file(w.project + "/tool"), "#!/bin/sh\necho tool\n");
  EXPECT_TRUE(contains(rs.err, w.project + "/tool: restored without its set-id bits")) << describe(rs);
  EXPECT_FALSE(exists(w.project + "/pipe"));
  EXPECT_TRUE(contains(rs.out, "held back " + w.project + "/pipe")) << describe(rs);
}

// A tree deeper than the descriptors a process may hold (about 1,000 nested directories under the
// usual soft limit of 1,024) is captured and restored whole: it used to be left out of the
// snapshots without a word.
TEST(Undo, ATreeThousandsOfDirectoriesDeepIsCapturedAndRestored) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.project + "/keep", "1");
  // 1,500 levels ("d/" each: 3,000 bytes, under PATH_MAX), then a file at the bottom.
  const std::string deep = [] {
    std::string p;
    for (int i = 0; i < 1500; ++i) p += "d/";
    return p;
  }();
  // paddock as most systems start it: at most 1,024 open descriptors.
  // A restore this deep takes ~20 s on a quiet 2-core machine (each change's directory is opened
  // component by component from the root: 1,500 changes x ~750 levels); allow for a loaded one.
  auto paddock = [&](std::vector<std::string> args) {
    std::vector<std::string> argv{"/bin/sh", "-c", "ulimit -n 1024 && exec \"$0\" \"$@\"", paddock_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOpts o = w.state_opts();
    o.timeout = std::chrono::milliseconds(240000);
    return run(argv, o);
  };
  Proc r = paddock({"run", "--undo", "--", "sh", "-c", "mkdir -p " + deep + " && echo bottom > " + deep + "f"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_FALSE(contains(r.err, "could not be read")) << describe(r);
  Proc show = paddock({"undo", "show"});
  ASSERT_EQ(show.code, 0) << describe(show);
  EXPECT_TRUE(contains(show.out, "added     " + w.project + "/" + deep + "f")) << describe(show).substr(0, 2000);
  Proc rs = paddock({"undo", "restore", "--yes"});
  ASSERT_EQ(rs.code, 0) << describe(rs).substr(0, 2000);
  EXPECT_FALSE(exists(w.project + "/d"));
}

// What a snapshot cannot read (a directory the user cannot open) is not in it: the run's last
// lines and `undo show` say so, and a restore leaves it alone. Root reads everything: as the
// unprivileged user only.
TEST(Undo, WhatASnapshotCannotReadIsSaid) {
  KTEST_REQUIRE_BINARIES();
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a mode 000 directory: nothing is left out";
  World w;
  write_file(w.project + "/keep", "1");
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "mkdir locked && echo x > locked/f && chmod 000 locked"},
                     w.state_opts());
  ::chmod((w.project + "/locked").c_str(), 0700);  // for the cleanup, after the last snapshot
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "1 path could not be read and is not in snapshot :1")) << describe(r);
  EXPECT_TRUE(contains(r.err, w.project + "/locked (unreadable: ")) << describe(r);
  Proc show = w.paddock({"undo", "show"}, w.state_opts());
  EXPECT_TRUE(contains(show.out, w.project + "/locked (unreadable: ")) << describe(show);
}

// The store's quota: `undo prune` removes the oldest sessions until the objects fit in it.
TEST(Undo, PruneKeepsTheStoreUnderItsQuota) {
  KTEST_REQUIRE_BINARIES();
  World w;
  for (int i = 0; i < 3; ++i) {
    // Each run replaces the last one's blob: a session holds its own and the one before.
    Proc r = w.paddock({"run", "--undo", "--undo-exclude", "paddock-probe", "--", "sh", "-c",
                        "rm -f blob*; head -c 1048576 /dev/urandom > blob" + std::to_string(i)},
                       w.state_opts());
    ASSERT_EQ(r.code, 0) << describe(r);
  }
  Proc bad = w.paddock({"undo", "prune", "--max-size", "lots"}, w.state_opts());
  EXPECT_EQ(bad.code, 2) << describe(bad);
  // 3 MiB of objects; without the oldest session 3 MiB still (its blob is the second's before),
  // without the two oldest 2 MiB.
  Proc quota = w.paddock({"undo", "prune", "--max-size", "2600K"}, w.state_opts());
  ASSERT_EQ(quota.code, 0) << describe(quota);
  EXPECT_TRUE(contains(quota.err, "pruned 2 sessions")) << describe(quota);
  EXPECT_TRUE(contains(quota.err, "(quota 2600K)")) << describe(quota);
  Proc fits = w.paddock({"undo", "prune"}, w.state_opts());
  EXPECT_TRUE(contains(fits.err, "pruned 0 sessions")) << describe(fits);
  EXPECT_TRUE(contains(fits.err, "(quota 10G)")) << describe(fits);
}

// Issue 30 item 4, the user's report: a run with --undo in each of two projects, then from the
// first `undo restore --dry-run` proposed to delete a file in the second (the newest session in
// the whole store). Every undo command now takes the current project's sessions, says which, and
// --all takes every project's; `undo list` shows the newest 20 unless --limit says otherwise.
TEST(Undo, EachProjectUndoesItsOwnSessions) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string other = w.home + "/other";
  make_dirs(other);
  RunOpts in_other = w.state_opts();
  in_other.cwd = other;
  Proc first = w.paddock({"run", "--undo", "--", "sh", "-c", "echo mine > mine.txt"}, w.state_opts());
  ASSERT_EQ(first.code, 0) << describe(first);
  Proc second = w.paddock({"run", "--undo", "--", "sh", "-c", "echo theirs > theirs.txt"}, in_other);
  ASSERT_EQ(second.code, 0) << describe(second);
  // From the first project: its own session, said so on stderr; nothing in the other.
  Proc dry = w.paddock({"undo", "restore", "--dry-run"}, w.state_opts());
  ASSERT_EQ(dry.code, 0) << describe(dry);
  EXPECT_TRUE(contains(dry.out, w.project + "/mine.txt")) << describe(dry);
  EXPECT_FALSE(contains(dry.out + dry.err, "theirs.txt")) << describe(dry);
  EXPECT_TRUE(contains(dry.err, "the newest session of " + w.project + ":")) << describe(dry);
  for (const char* cmd : {"show", "diff"}) {
    Proc p = w.paddock({"undo", cmd}, w.state_opts());
    EXPECT_EQ(p.code, 0) << describe(p);
    EXPECT_TRUE(contains(p.out, "mine.txt")) << cmd << ": " << describe(p);
    EXPECT_FALSE(contains(p.out, "theirs.txt")) << cmd << ": " << describe(p);
  }
  Proc list = w.paddock({"undo", "list"}, w.state_opts());
  EXPECT_TRUE(contains(list.out, "echo mine")) << describe(list);
  EXPECT_FALSE(contains(list.out, "echo theirs")) << describe(list);
  EXPECT_TRUE(contains(list.err, "1 session of " + w.project + " (of 2 in the store")) << describe(list);
  // --all: every project's (the newest is the other's), and whose each is.
  Proc all = w.paddock({"undo", "list", "--all"}, w.state_opts());
  EXPECT_TRUE(contains(all.out, "echo mine") && contains(all.out, "echo theirs")) << describe(all);
  EXPECT_TRUE(contains(all.out, "captured " + other)) << describe(all);
  Proc all_dry = w.paddock({"undo", "restore", "--dry-run", "--all"}, w.state_opts());
  EXPECT_TRUE(contains(all_dry.out, other + "/theirs.txt")) << describe(all_dry);
  // From a subdirectory: the same project (its session captured the directory above).
  make_dirs(w.project + "/sub");
  RunOpts in_sub = w.state_opts();
  in_sub.cwd = w.project + "/sub";
  Proc sub = w.paddock({"undo", "restore", "--dry-run"}, in_sub);
  EXPECT_TRUE(contains(sub.out, w.project + "/mine.txt")) << describe(sub);
  remove_tree(w.project + "/sub");  // made by hand, in no snapshot: a restore would refuse to remove it
  // From a directory no session captured: refused with what to do, nothing proposed.
  const std::string none = w.home + "/none";
  make_dirs(none);
  RunOpts in_none = w.state_opts();
  in_none.cwd = none;
  Proc nothing = w.paddock({"undo", "restore", "--dry-run"}, in_none);
  EXPECT_NE(nothing.code, 0) << describe(nothing);
  EXPECT_TRUE(contains(nothing.err, "no undo session of " + none)) << describe(nothing);
  EXPECT_TRUE(contains(nothing.err, "--all")) << describe(nothing);
  // The restore takes back the first project's run and leaves the other's.
  Proc yes = w.paddock({"undo", "restore", "--yes"}, w.state_opts());
  ASSERT_EQ(yes.code, 0) << describe(yes);
  EXPECT_FALSE(fs::exists(w.project + "/mine.txt"));
  EXPECT_EQ(read_file(other + "/theirs.txt"), "theirs\n");
  // The list is bounded: --limit N shows the newest N and says how many more there are.
  for (int i = 0; i < 2; ++i) {
    Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "echo " + std::to_string(i) + " > n.txt"}, w.state_opts());
    ASSERT_EQ(r.code, 0) << describe(r);
  }
  Proc limited = w.paddock({"undo", "list", "--limit", "1"}, w.state_opts());
  EXPECT_TRUE(contains(limited.out, "echo 1 > n.txt")) << describe(limited);
  EXPECT_FALSE(contains(limited.out, "echo mine")) << describe(limited);
  EXPECT_TRUE(contains(limited.err, "2 older sessions not shown")) << describe(limited);
  Proc bad = w.paddock({"undo", "list", "--limit", "-1"}, w.state_opts());
  EXPECT_NE(bad.code, 0) << describe(bad);
}

// Issue 30 item 5, the user's report: `undo restore S:0` took back session S's own changes only
// (S's `configure` deleted, a later session's `Makefile` kept) while its help said "bring the tree
// back to a snapshot". Both meanings, by name: `undo revert S` takes back what S changed;
// `undo restore S:N` brings the whole scope back to that snapshot, later sessions' changes too.
// The help and the dry run say which runs.
TEST(Undo, RevertTakesBackOneSessionRestoreBringsTheScopeBackToASnapshot) {
  KTEST_REQUIRE_BINARIES();
  World w;
  auto session_of = [](const Proc& p) {
    const auto at = p.err.find("undo: session ");
    return at == std::string::npos ? std::string() : p.err.substr(at + 14, 20);
  };
  write_file(w.project + "/src/main.c", "int main() { return 0; }\n");
  Proc first = w.paddock({"run", "--undo", "--", "sh", "-c", "printf '#!/bin/sh\\n' > configure"}, w.state_opts());
  ASSERT_EQ(first.code, 0) << describe(first);
  Proc second = w.paddock({"run", "--undo", "--", "sh", "-c", "echo all: > Makefile; echo v2 > src/main.c"}, w.state_opts());
  ASSERT_EQ(second.code, 0) << describe(second);
  const std::string s1 = session_of(first);
  ASSERT_EQ(s1.size(), 20u) << describe(first);
  const std::string s2 = session_of(second);
  // The help names both.
  Proc help = w.paddock({"undo", "--help"}, w.state_opts());
  EXPECT_TRUE(contains(help.out, "revert")) << describe(help);
  EXPECT_TRUE(contains(help.out, "later sessions' changes are taken back too")) << describe(help);
  // The dry runs say which meaning runs, and differ.
  Proc dry_revert = w.paddock({"undo", "revert", "--dry-run", s1}, w.state_opts());
  ASSERT_EQ(dry_revert.code, 0) << describe(dry_revert);
  EXPECT_TRUE(contains(dry_revert.err, "undo revert: takes back what session " + s1 + " changed after :0")) << describe(dry_revert);
  EXPECT_TRUE(contains(dry_revert.out, "deleted   " + w.project + "/configure")) << describe(dry_revert);
  EXPECT_FALSE(contains(dry_revert.out, "Makefile")) << describe(dry_revert);
  Proc dry_restore = w.paddock({"undo", "restore", "--dry-run", s1 + ":0"}, w.state_opts());
  ASSERT_EQ(dry_restore.code, 0) << describe(dry_restore);
  EXPECT_TRUE(contains(dry_restore.err, "brings the whole scope back to snapshot " + s1 + ":0")) << describe(dry_restore);
  EXPECT_TRUE(contains(dry_restore.err, "later session are taken back too (" + s2)) << describe(dry_restore);
  EXPECT_TRUE(contains(dry_restore.out, "deleted   " + w.project + "/configure")) << describe(dry_restore);
  EXPECT_TRUE(contains(dry_restore.out, "deleted   " + w.project + "/Makefile")) << describe(dry_restore);
  EXPECT_TRUE(contains(dry_restore.out, "modified  " + w.project + "/src/main.c")) << describe(dry_restore);
  Proc json = w.paddock({"undo", "restore", "--dry-run", "--json", s1}, w.state_opts());
  EXPECT_TRUE(contains(json.out, "\"meaning\": \"snapshot\"")) << describe(json);
  // A dry run records nothing: the revert still sees only S's own changes.
  Proc again = w.paddock({"undo", "revert", "--dry-run", s1}, w.state_opts());
  EXPECT_FALSE(contains(again.out, "Makefile")) << describe(again);
  // revert: configure goes, the later session's Makefile and main.c stay.
  Proc revert = w.paddock({"undo", "revert", "--yes", s1}, w.state_opts());
  ASSERT_EQ(revert.code, 0) << describe(revert);
  EXPECT_FALSE(fs::exists(w.project + "/configure"));
  EXPECT_EQ(read_file(w.project + "/Makefile"), "all:\n");
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "v2\n");
  // restore S1:1: the scope as the first run left it (configure back, the second run's changes gone).
  Proc to_one = w.paddock({"undo", "restore", "--yes", s1 + ":1"}, w.state_opts());
  ASSERT_EQ(to_one.code, 0) << describe(to_one);
  EXPECT_EQ(read_file(w.project + "/configure"), "#!/bin/sh\n");
  EXPECT_FALSE(fs::exists(w.project + "/Makefile"));
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
  // restore S2:1: the scope as the second run left it, whatever the restores did in between.
  Proc to_two = w.paddock({"undo", "restore", "--yes", s2 + ":1"}, w.state_opts());
  ASSERT_EQ(to_two.code, 0) << describe(to_two);
  EXPECT_EQ(read_file(w.project + "/configure"), "#!/bin/sh\n");
  EXPECT_EQ(read_file(w.project + "/Makefile"), "all:\n");
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "v2\n");
  // restore S1:0: the tree before either run; and the restore can itself be undone.
  Proc to_zero = w.paddock({"undo", "restore", "--yes", s1 + ":0"}, w.state_opts());
  ASSERT_EQ(to_zero.code, 0) << describe(to_zero);
  EXPECT_FALSE(fs::exists(w.project + "/configure"));
  EXPECT_FALSE(fs::exists(w.project + "/Makefile"));
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
  const std::string marker = "undo this restore: paddock undo restore ";
  const auto at = to_zero.err.find(marker);
  ASSERT_NE(at, std::string::npos) << describe(to_zero);
  const std::string back = to_zero.err.substr(at + marker.size(), to_zero.err.find('\n', at) - at - marker.size());
  Proc undone = w.paddock({"undo", "restore", "--yes", back}, w.state_opts());
  ASSERT_EQ(undone.code, 0) << describe(undone);
  EXPECT_EQ(read_file(w.project + "/Makefile"), "all:\n");
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "v2\n");
}

}  // namespace
}  // namespace ktest
