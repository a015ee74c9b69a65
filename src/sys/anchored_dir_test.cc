#include "sys/anchored_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace paddock::sys {
namespace {

class AnchoredDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-anchored.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ASSERT_EQ(mkdir((root_ + "/real").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((root_ + "/real/sub").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((root_ + "/elsewhere").c_str(), 0755), 0);
    ASSERT_EQ(symlink("real", (root_ + "/link").c_str()), 0);
  }
  void TearDown() override {
    if (std::system(("rm -rf " + root_).c_str()) != 0) ADD_FAILURE() << "could not remove " << root_;
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string root_;
};

TEST_F(AnchoredDir, OpensARealDirectory) {
  auto d = open_dir_no_symlinks(root_ + "/real/sub");
  ASSERT_TRUE(d.ok()) << d.error().describe();
  struct stat a, b;
  ASSERT_EQ(fstat(d->get(), &a), 0);
  ASSERT_EQ(stat((root_ + "/real/sub").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
}

TEST_F(AnchoredDir, RefusesASymlinkAtAnyComponent) {
  for (const std::string& p : {root_ + "/link", root_ + "/link/sub", root_ + "/link/../real"}) {
    auto d = open_dir_no_symlinks(p);
    ASSERT_FALSE(d.ok()) << p;
    EXPECT_NE(d.error().message.find("goes through a symlink"), std::string::npos) << d.error().describe();
  }
}

TEST_F(AnchoredDir, WritesRelativeToTheDescriptorEvenAfterASwap) {
  auto d = open_dir_no_symlinks(root_ + "/real");
  ASSERT_TRUE(d.ok()) << d.error().describe();
  // The directory is moved away and replaced by a symlink to somewhere else, as a sandbox could.
  ASSERT_EQ(rename((root_ + "/real").c_str(), (root_ + "/moved").c_str()), 0);
  ASSERT_EQ(symlink("elsewhere", (root_ + "/real").c_str()), 0);
  ASSERT_TRUE(write_file_at(d->get(), "run.json", "{}\n", 0644).ok());
  EXPECT_EQ(slurp(root_ + "/moved/run.json"), "{}\n");
  EXPECT_NE(access((root_ + "/elsewhere/run.json").c_str(), F_OK), 0);
}

TEST_F(AnchoredDir, ReplacesASymlinkPlantedAtTheNameInsteadOfFollowingIt) {
  auto d = open_dir_no_symlinks(root_ + "/real");
  ASSERT_TRUE(d.ok()) << d.error().describe();
  ASSERT_EQ(symlink("../elsewhere/victim", (root_ + "/real/run.json").c_str()), 0);
  ASSERT_TRUE(write_file_at(d->get(), "run.json", "x", 0644).ok());
  struct stat st;
  ASSERT_EQ(lstat((root_ + "/real/run.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_NE(access((root_ + "/elsewhere/victim").c_str(), F_OK), 0);
  // No temporary file is left beside it.
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + root_ + "/real | grep tmp)\"").c_str()), 0);
}

TEST(SplitFilePath, DirAndName) {
  EXPECT_EQ(split_file_path("run.json")->first, ".");
  EXPECT_EQ(split_file_path("/run.json")->first, "/");
  EXPECT_EQ(split_file_path("a/b/run.json")->first, "a/b");
  EXPECT_EQ(split_file_path("a/b/run.json")->second, "run.json");
  EXPECT_FALSE(split_file_path("a/").ok());
  EXPECT_FALSE(split_file_path("a/..").ok());
}

// open_beneath, through openat2 and through its fallback: a stand-in openat2 that fails with
// ENOSYS (as on a kernel before 5.6) makes the same calls take the per-component walk.
int g_fake_calls = 0;
long no_openat2(int, const char*, const void*, std::size_t) {
  ++g_fake_calls;
  errno = ENOSYS;
  return -1;
}

class OpenBeneath : public AnchoredDir, public ::testing::WithParamInterface<bool> {
 protected:
  Openat2Fn fn() const { return GetParam() ? &no_openat2 : nullptr; }
  // The errno of a refused open, or 0 when it opened.
  int refused(int dirfd, const std::string& rel, int flags) {
    const int before = g_fake_calls;
    auto r = open_beneath(dirfd, rel, flags, fn());
    EXPECT_EQ(g_fake_calls - before, GetParam() ? 1 : 0) << "the fallback was not the path taken";
    return r.ok() ? 0 : r.error().sys_errno;
  }
};

TEST_P(OpenBeneath, OpensBelowAndRefusesWhatOpenat2Refuses) {
  {
    std::ofstream f(root_ + "/real/sub/file");
    f << "inside";
  }
  ASSERT_EQ(symlink("file", (root_ + "/real/sub/flink").c_str()), 0);
  ASSERT_EQ(symlink("/etc/passwd", (root_ + "/real/abs").c_str()), 0);
  UniqueFd top(open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(top);

  auto f = open_beneath(top.get(), "real/sub/file", O_RDONLY, fn());
  ASSERT_TRUE(f.ok()) << f.error().describe();
  char buf[16] = {};
  ASSERT_EQ(read(f->get(), buf, sizeof buf), 6);
  EXPECT_STREQ(buf, "inside");
  EXPECT_NE(fcntl(f->get(), F_GETFD) & FD_CLOEXEC, 0);

  EXPECT_EQ(refused(top.get(), "link/sub/file", O_RDONLY), ELOOP);    // a symlink on the way
  EXPECT_EQ(refused(top.get(), "real/sub/flink", O_RDONLY), ELOOP);   // a trailing symlink
  EXPECT_EQ(refused(top.get(), "real/abs", O_RDONLY), ELOOP);         // an absolute one
  EXPECT_EQ(refused(top.get(), "../", O_RDONLY | O_DIRECTORY), EXDEV);  // above DIRFD
  EXPECT_EQ(refused(top.get(), "real/../../x", O_RDONLY), EXDEV);
  EXPECT_EQ(refused(top.get(), "/etc/passwd", O_RDONLY), EXDEV);
  EXPECT_EQ(refused(top.get(), "real/missing", O_RDONLY), ENOENT);
  // With O_PATH | O_NOFOLLOW a trailing symlink is the link itself.
  EXPECT_EQ(refused(top.get(), "real/sub/flink", O_PATH | O_NOFOLLOW), 0);
  auto l = open_beneath(top.get(), "real/sub/flink", O_PATH | O_NOFOLLOW, fn());
  ASSERT_TRUE(l.ok());
  struct stat st;
  ASSERT_EQ(fstat(l->get(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_P(OpenBeneath, DoesNotCrossAMountPoint) {
  struct stat root_st, proc_st;
  if (stat("/", &root_st) != 0 || stat("/proc/self", &proc_st) != 0 || root_st.st_dev == proc_st.st_dev)
    GTEST_SKIP() << "needs /proc mounted on its own file system";
  UniqueFd slash(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(slash);
  EXPECT_EQ(refused(slash.get(), "proc/version", O_RDONLY), EXDEV);
}

INSTANTIATE_TEST_SUITE_P(Openat2AndFallback, OpenBeneath, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Fallback" : "Openat2"; });

}  // namespace
}  // namespace paddock::sys
