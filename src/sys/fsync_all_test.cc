#include "sys/fsync_all.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "sys/unique_fd.h"

namespace paddock::sys {
namespace {

class FsyncAll : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-fsync-all-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (int i = 0; i < 40; ++i) {
      const std::string p = dir_ + "/f" + std::to_string(i);
      files_.emplace_back(::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
      ASSERT_TRUE(files_.back());
      ASSERT_EQ(::write(files_.back().get(), "x", 1), 1);
      fds_.push_back(files_.back().get());
      names_.push_back(p);
    }
  }
  void TearDown() override { (void)std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
  std::vector<UniqueFd> files_;
  std::vector<int> fds_;
  std::vector<std::string> names_;
};

TEST_F(FsyncAll, ManyFilesAndNone) {
  EXPECT_TRUE(fsync_all(fds_, names_).ok());
  EXPECT_TRUE(fsync_all({}).ok());
  EXPECT_TRUE(fsync_all({fds_[0]}).ok());
}

// Every descriptor is fsynced, not only the first ones: one that cannot be (a pipe: EINVAL) is
// reported wherever it lies, and the lowest such index is the one named.
TEST_F(FsyncAll, AFailureAnywhereIsReportedWithItsName) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  UniqueFd r(p[0]), w(p[1]);
  auto fds = fds_;
  auto names = names_;
  fds.push_back(r.get());
  names.push_back("the last one");
  auto last = fsync_all(fds, names);
  ASSERT_FALSE(last.ok());
  EXPECT_EQ(last.error().sys_errno, EINVAL);
  EXPECT_EQ(last.error().where, "the last one");

  fds[7] = w.get();
  names[7] = "the eighth";
  auto first = fsync_all(fds, names);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().where, "the eighth");
}

}  // namespace
}  // namespace paddock::sys
