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

}  // namespace
}  // namespace paddock::sys
