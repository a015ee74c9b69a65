// Escape suite, a repository's objects (issue 25, class 3): git does not re-hash a loose object
// when it reads one, so a run that can write the project's .git/objects can rewrite the object
// of the host's HEAD tree — and the host's next `git reset --hard` or `checkout` writes what the
// run chose (an .envrc here) into the work tree, which nothing after the run saw change. Or it
// points a ref (refs/replace/*, a branch) at an object the repository never verified. Each attack
// is first run on the host without paddock, where the host's git must then write the payload
// (so the test can fail), then inside paddock, with namespaces (a private object directory,
// imported through a verifying step) and in the fallback (the objects directory checked in place
// after the run); afterwards the host's git must write nothing the run chose.
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

// Rewrites the loose object of HEAD's root tree so that it also holds .envrc (whose content
// touches $MARK). POSIX sh; run in the repository.
constexpr const char* kPlantTree = R"sh(set -e
obj_path() { printf "%s/%s/%s" "$1" "$(printf %s "$2" | cut -c1-2)" "$(printf %s "$2" | cut -c3-)"; }
objects=$(git rev-parse --git-common-dir)/objects
tree=$(git rev-parse HEAD^{tree})
d=$(mktemp -d)
b=$(printf "touch %s\n" "$MARK" | GIT_OBJECT_DIRECTORY=$d git hash-object -w --stdin)
t=$( (git ls-tree HEAD; printf "100644 blob %s\t.envrc\n" "$b") | GIT_OBJECT_DIRECTORY=$d GIT_ALTERNATE_OBJECT_DIRECTORIES=$objects git mktree)
target=$(obj_path "$objects" "$tree")
mkdir -p "$(dirname "$target")" "$(dirname "$(obj_path "$objects" "$b")")"
cp "$(obj_path "$d" "$b")" "$(obj_path "$objects" "$b")" 2>/dev/null || true
rm -f "$target"
cp "$(obj_path "$d" "$t")" "$target"
)sh";

class EscapeGitObjects : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (paddock_bin().empty() || probe_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set";
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
  }
  bool fallback() const { return GetParam(); }

  static RunOpts host_opts(const World& w) {
    RunOpts o = w.opts();
    o.env["GIT_CONFIG_NOSYSTEM"] = "1";
    o.env["GIT_AUTHOR_NAME"] = o.env["GIT_COMMITTER_NAME"] = "t";
    o.env["GIT_AUTHOR_EMAIL"] = o.env["GIT_COMMITTER_EMAIL"] = "t@t";
    o.unset = {"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_OBJECT_DIRECTORY"};
    return o;
  }
  static std::string mark(const World& w) { return w.root / "payload-ran"; }
  // A repository with a committed file (its objects loose, as after a commit) in W's project.
  static void make_repo(const World& w) {
    auto r = run({"/bin/sh", "-c", "git init -q -b main . && echo alpha >a.txt && git add a.txt && git commit -q -m base"},
                 host_opts(w));
    ASSERT_EQ(r.code, 0) << describe(r);
  }
  static Proc host(const World& w, const std::string& script) { return run({"/bin/sh", "-c", script}, host_opts(w)); }
  // The host's everyday git after the run: reset and check out HEAD.
  static void host_checkout(const World& w) { host(w, "git reset -q --hard; git checkout -q -f HEAD; true"); }

  // ATTACK run on the host without paddock in a fresh repository: whether the host's checkout
  // then writes the run's .envrc (else a test of it proves nothing).
  static bool works_without_paddock(const char* attack) {
    World control;
    make_repo(control);
    RunOpts o = host_opts(control);
    o.env["MARK"] = mark(control);
    auto direct = run({"/bin/sh", "-c", attack}, o);
    if (direct.code != 0) return false;
    host(control, "rm -f a.txt");
    host_checkout(control);
    return exists(control.project + "/.envrc");
  }

  Proc inside(const World& w, const std::string& script) {
    RunOpts o = host_opts(w);
    if (fallback()) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
    o.env["MARK"] = mark(w);
    return w.paddock({"run", "--no-diagnostics", "--env", "MARK", "--env", "GIT_AUTHOR_NAME", "--env", "GIT_AUTHOR_EMAIL",
                      "--env", "GIT_COMMITTER_NAME", "--env", "GIT_COMMITTER_EMAIL", "--", "/bin/sh", "-c", script},
                     o);
  }
};

TEST_P(EscapeGitObjects, ARewrittenTreeNeverReachesTheHostsCheckout) {
  ASSERT_TRUE(works_without_paddock(kPlantTree)) << "the attack does not work even without paddock, so this test proves nothing";
  World w;
  make_repo(w);
  auto p = inside(w, kPlantTree);
  EXPECT_EQ(p.code, 0) << describe(p);
  host_checkout(w);
  EXPECT_FALSE(exists(w.project + "/.envrc")) << "the host's checkout wrote the run's .envrc\n" << describe(p);
  EXPECT_FALSE(exists(mark(w)));
  if (fallback()) {
    // The objects directory was the run's to write: the object is found and moved aside.
    EXPECT_TRUE(contains(p.err, "is not what its name says")) << describe(p);
  } else {
    // Never written: HEAD's tree is the host's, whole.
    auto ls = host(w, "git ls-tree --name-only HEAD && git fsck --no-dangling");
    EXPECT_EQ(ls.code, 0) << describe(ls);
    EXPECT_EQ(ls.out, "a.txt\n") << describe(ls);
  }
}

// A replace ref makes git show (and check out) another commit in place of the one a ref names,
// silently: the run's commit, whose tree holds .envrc, in place of HEAD.
constexpr const char* kReplaceHead = R"sh(set -e
head=$(git rev-parse HEAD)
b=$(printf "touch %s\n" "$MARK" | git hash-object -w --stdin)
t=$( (git ls-tree HEAD; printf "100644 blob %s\t.envrc\n" "$b") | git mktree)
c=$(printf "tree %s\nauthor a <a> 1 +0000\ncommitter a <a> 1 +0000\n\nbase\n" "$t" | git hash-object -t commit -w --stdin)
mkdir -p .git/refs/replace
echo "$c" >".git/refs/replace/$head"
)sh";

TEST_P(EscapeGitObjects, AReplaceRefIsNeverPublished) {
  ASSERT_TRUE(works_without_paddock(kReplaceHead)) << "the attack does not work even without paddock, so this test proves nothing";
  World w;
  make_repo(w);
  const std::string head = host(w, "git rev-parse HEAD").out.substr(0, 40);
  auto p = inside(w, kReplaceHead);
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_FALSE(exists(w.project + "/.git/refs/replace/" + head)) << describe(p);
  EXPECT_TRUE(contains(p.err, "refs/replace/" + head + " not published")) << describe(p);
  host(w, "rm -f a.txt");
  host_checkout(w);
  EXPECT_FALSE(exists(w.project + "/.envrc")) << "the host's checkout wrote the run's .envrc\n" << describe(p);
}

// A ref the run points at an object the repository does not have is put back (a branch) or
// removed (a new one).
TEST_P(EscapeGitObjects, RefsToObjectsTheRepositoryLacksArePutBack) {
  World w;
  make_repo(w);
  const std::string main_before = host(w, "git rev-parse main").out;
  auto p = inside(w, "echo 0123456789012345678901234567890123456789 >.git/refs/heads/main; "
                     "echo 0123456789012345678901234567890123456789 >.git/refs/heads/new");
  EXPECT_EQ(p.code, 0) << describe(p);
  EXPECT_EQ(host(w, "git rev-parse main").out, main_before) << describe(p);
  EXPECT_FALSE(exists(w.project + "/.git/refs/heads/new")) << describe(p);
  EXPECT_TRUE(contains(p.err, "refs/heads/main not published")) << describe(p);
  EXPECT_TRUE(contains(p.err, "refs/heads/new not published")) << describe(p);
}

// What a run commits the ordinary way reaches the host's repository, whole.
TEST_P(EscapeGitObjects, CommitsMadeInsideArePublished) {
  World w;
  make_repo(w);
  auto p = inside(w, "set -e; echo new >new.txt; git add new.txt; git commit -q -m inside; git checkout -q -b topic; "
                     "echo t >t.txt; git add t.txt; git commit -q -m topic; git checkout -q main");
  EXPECT_EQ(p.code, 0) << describe(p);
  auto log = host(w, "git log --format=%s main && git show topic:t.txt && git fsck --no-dangling");
  EXPECT_EQ(log.code, 0) << describe(log) << describe(p);
  EXPECT_EQ(log.out, "inside\nbase\nt\n") << describe(log);
  EXPECT_FALSE(contains(p.err, "not published")) << describe(p);
}

// The fallback has no private object directory: a pack whose index names other objects than the
// pack holds is found after the run and moved aside. (With namespaces the run writes only its
// private directory, which is imported through index-pack.)
TEST_P(EscapeGitObjects, APackIndexThatLiesIsMovedAside) {
  World w;
  make_repo(w);
  auto p = inside(w,
                  "set -e; cd .git/objects/pack\n"
                  "a=$(git rev-parse HEAD | git pack-objects --quiet x); b=$(git rev-parse HEAD^{tree} | git pack-objects --quiet y)\n"
                  "mv x-$a.pack pack-$a.pack; mv x-$a.idx pack-$a.idx; mv y-$b.pack pack-$b.pack; cp pack-$a.idx pack-$b.idx\n");
  EXPECT_EQ(p.code, 0) << describe(p);
  auto listed = host(w, "ls .git/objects/pack");
  if (fallback()) {
    EXPECT_TRUE(contains(p.err, "does not match its index")) << describe(p);
    EXPECT_TRUE(contains(listed.out, ".idx.paddock-quarantine")) << describe(listed);
  }
  auto fsck = host(w, "git fsck --no-dangling");
  EXPECT_EQ(fsck.code, 0) << describe(fsck) << describe(p);
}

INSTANTIATE_TEST_SUITE_P(Escape, EscapeGitObjects, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Namespaces"; });

}  // namespace
}  // namespace ktest
