#include "gate/mask_watch.h"

#include "gate/gate.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace paddock::gate {
namespace {

class MaskWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-maskwatch-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ASSERT_EQ(mkdir((root_ + "/.config").c_str(), 0700), 0);
    ASSERT_EQ(mkdir((root_ + "/.config/containers").c_str(), 0700), 0);
    std::ofstream(root_ + "/.config/containers/auth.json") << "secret";
    policy_.paths.push_back(PathRule{root_ + "/.config", "~/.config", Access::ReadWrite, {Origin::Kind::Flag, "--allow"}, false, {}});
    policy_.denied.push_back({root_ + "/.config/containers/auth.json", "Podman registry credentials"});
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + root_).c_str()), 0); }
  std::string read(const std::string& rel) const {
    std::ifstream f(root_ + "/" + rel);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  bool exists(const std::string& rel) const {
    struct stat st;
    return lstat((root_ + "/" + rel).c_str(), &st) == 0;
  }
  std::string root_;
  Policy policy_;
};

TEST_F(MaskWatchTest, NothingMovedNothingSaid) {
  MaskWatch w = MaskWatch::before(policy_);
  std::ofstream(root_ + "/.config/other") << "x";
  EXPECT_TRUE(w.after().empty());
}

// The two-run attack's first half, done on the host: the hidden file's parent renamed and rebuilt.
// After the check the secret is back where the next run hides it; what the run built there is aside.
TEST_F(MaskWatchTest, AParentRenamedIsMovedBack) {
  MaskWatch w = MaskWatch::before(policy_);
  ASSERT_EQ(rename((root_ + "/.config/containers").c_str(), (root_ + "/.config/c2").c_str()), 0);
  ASSERT_EQ(mkdir((root_ + "/.config/containers").c_str(), 0700), 0);
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, root_ + "/.config/containers/auth.json");
  EXPECT_NE(left[0].what.find("Podman registry credentials"), std::string::npos) << left[0].what;
  EXPECT_NE(left[0].action.find("moved back from " + root_ + "/.config/c2"), std::string::npos) << left[0].action;
  EXPECT_EQ(read(".config/containers/auth.json"), "secret");
  EXPECT_FALSE(exists(".config/c2"));
  EXPECT_TRUE(exists(".config/containers.paddock-quarantine"));
}

TEST_F(MaskWatchTest, TheHiddenFileItselfMovedDeeperIsFound) {
  MaskWatch w = MaskWatch::before(policy_);
  ASSERT_EQ(mkdir((root_ + "/.config/a").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((root_ + "/.config/a/b").c_str(), 0700), 0);
  ASSERT_EQ(rename((root_ + "/.config/containers/auth.json").c_str(), (root_ + "/.config/a/b/x").c_str()), 0);
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(read(".config/containers/auth.json"), "secret");
  EXPECT_FALSE(exists(".config/a/b/x"));
}

TEST_F(MaskWatchTest, MovedOutOfReachIsSaid) {
  MaskWatch w = MaskWatch::before(policy_);
  ASSERT_EQ(rename((root_ + "/.config/containers").c_str(), (root_ + "/elsewhere").c_str()), 0);
  auto left = w.after();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].action.find("not found"), std::string::npos) << left[0].action;
}

// The gate asks it after every run: the check a run's door finishes moves the secret back too.
TEST_F(MaskWatchTest, TheGatesCheckAfterARunAsksIt) {
  Check c = Check::before_run(policy_, {});
  ASSERT_EQ(rename((root_ + "/.config/containers").c_str(), (root_ + "/.config/c2").c_str()), 0);
  auto left = c.after();
  ASSERT_FALSE(left.empty());
  EXPECT_EQ(left[0].path, root_ + "/.config/containers/auth.json");
  EXPECT_EQ(read(".config/containers/auth.json"), "secret");
}

TEST_F(MaskWatchTest, OnlyHiddenPathsInWritableAreas) {
  policy_.paths[0].access = Access::Read;
  MaskWatch w = MaskWatch::before(policy_);
  ASSERT_EQ(rename((root_ + "/.config/containers").c_str(), (root_ + "/.config/c2").c_str()), 0);
  EXPECT_TRUE(w.after().empty());
}

}  // namespace
}  // namespace paddock::gate
