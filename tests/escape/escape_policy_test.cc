// Escape suite, the policy itself: what a sandbox writes must not choose the next run's policy
// (issue 18, items 1-2). Each test plants from inside a real sandbox, then runs paddock again
// the way the user would and checks what that run could read.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

// The agent writes ./base.toml granting the SSH key; the user's profile in ~/prof says
// extends = "base.toml". The next run must not read the project's file.
TEST(EscapePolicy, ExtendsCannotPickUpAProfileTheSandboxWrote) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string planted = "[filesystem]\nread = [\"" + w.home + "/.ssh\"]\n";
  auto plant = w.sh("printf '%s' '" + planted + "' > base.toml");
  ASSERT_EQ(plant.code, 0) << describe(plant);
  ASSERT_TRUE(exists(w.project + "/base.toml"));
  write_file(w.home + "/prof/user.toml", "extends = \"base.toml\"\n");
  auto next = w.probe_run({"--profile", w.home + "/prof/user.toml"}, {"read", w.ssh_key});
  EXPECT_NE(next.code, 0) << describe(next);
  EXPECT_FALSE(contains(next.out, World::kSecret)) << describe(next);
  EXPECT_TRUE(contains(next.err, w.home + "/prof/base.toml")) << describe(next);  // beside the profile

  // A profile in the project itself (the sandbox wrote it) is refused, by run and why alike.
  auto in_project = w.probe_run({"--profile", w.project + "/base.toml"}, {"read", w.ssh_key});
  EXPECT_EQ(in_project.code, 2) << describe(in_project);
  EXPECT_TRUE(contains(in_project.err, "the sandbox of this run could change this profile")) << describe(in_project);
  EXPECT_FALSE(contains(in_project.out, World::kSecret)) << describe(in_project);
  auto why = w.paddock({"why", "--profile", w.project + "/base.toml", "--path", w.ssh_key});
  EXPECT_EQ(why.code, 2) << describe(why);
}

// A profile reached through a symlink the sandbox can re-point is refused.
TEST(EscapePolicy, ProfileBehindASymlinkTheSandboxControlsIsRefused) {
  KTEST_REQUIRE_BINARIES();
  World w;
  write_file(w.home + "/prof/safe.toml", "description = \"safe\"\n");
  auto link = w.sh("ln -s " + w.home + "/prof profdir");
  ASSERT_EQ(link.code, 0) << describe(link);
  auto p = w.probe_run({"--profile", w.project + "/profdir/safe.toml"}, {"read", w.ssh_key});
  EXPECT_EQ(p.code, 2) << describe(p);
  EXPECT_TRUE(contains(p.err, "could change this profile")) << describe(p);
}

// Special files as profiles are refused by name, at once: no hang, no unbounded read.
TEST(EscapePolicy, SpecialFilesAsProfilesAreRefusedWithoutHanging) {
  KTEST_REQUIRE_BINARIES();
  World w;
  ASSERT_EQ(::mkfifo((w.home + "/fifo.toml").c_str(), 0600), 0);
  write_file(w.home + "/prof/zero.toml", "extends = \"/dev/zero\"\n");
  for (const std::string& profile : {std::string("/dev/zero"), w.home + "/fifo.toml", w.home + "/prof/zero.toml",
                                     w.home + "/prof"}) {
    RunOpts o = w.opts();
    o.timeout = std::chrono::milliseconds(20000);
    auto p = w.paddock({"run", "--profile", profile, "--", "/bin/true"}, o);
    EXPECT_FALSE(p.timed_out) << profile;
    EXPECT_EQ(p.code, 2) << profile << ": " << describe(p);
    EXPECT_TRUE(contains(p.err, "a profile must be a regular file")) << profile << ": " << describe(p);
  }
}

// Issue 12, item 5: run 1 plants vendor -> ~/.ssh; run 2's `--read vendor` must not lift the
// mask on ~/.ssh (it is refused, saying why), and `--allow` through a planted link to .git/hooks
// must not unprotect the hooks.
TEST(EscapePolicy, PlantedSymlinkDoesNotUnmaskASecret) {
  KTEST_REQUIRE_BINARIES();
  World w;
  // The repository is the host's (one made inside a run would be moved aside after it, and hl
  // would dangle); the links are what an earlier run planted.
  make_dirs(w.project + "/.git/hooks");
  auto plant = w.sh("ln -s " + w.home + "/.ssh vendor && ln -s .git/hooks hl");
  ASSERT_EQ(plant.code, 0) << describe(plant);
  auto next = w.probe_run({"--read", "vendor"}, {"read", w.project + "/vendor/id_ed25519"});
  EXPECT_EQ(next.code, 2) << describe(next);
  EXPECT_TRUE(contains(next.err, "leads through a symlink to " + w.home + "/.ssh")) << describe(next);
  EXPECT_FALSE(contains(next.out, World::kSecret)) << describe(next);
  auto why = w.paddock({"why", "--read", "vendor", "--path", w.ssh_key});
  EXPECT_EQ(why.code, 2) << describe(why);

  // Refused inside the sandbox, not only cleaned up after it: the post-run guard would move a new
  // hook aside too (and then the hooks directory is gone, so "no pre-commit" alone proves nothing).
  auto hooks = w.probe_run({"--allow", "hl"}, {"write", w.project + "/.git/hooks/pre-commit"});
  EXPECT_NE(hooks.code, 0) << describe(hooks);
  EXPECT_TRUE(contains(hooks.out, "DENIED")) << "the write itself must fail: " << describe(hooks);
  EXPECT_TRUE(exists(w.project + "/.git/hooks/.")) << "moved aside after the run: " << describe(hooks);
  EXPECT_FALSE(exists(w.project + "/.git/hooks/pre-commit"));
}

}  // namespace
}  // namespace ktest
