// Issue 18, items 1-2: the sandbox cannot choose the next run's policy, and no file can make
// paddock block or grow reading one.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "paddock/profile.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

class ProfileTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-trust-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(::mkdir((dir_ + "/prof").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((dir_ + "/proj").c_str(), 0755), 0);
    fs_ = std::make_shared<FakeFs>();
    fs_->dir("/usr/bin").dir("/etc").dir("/home/u").dir(dir_ + "/prof").dir(dir_ + "/proj").dir("/secret");
    ctx_.cwd = dir_ + "/proj";
    ctx_.home = "/home/u";
    ctx_.user = "u";
    ctx_.fs = fs_;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }

  void put(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ + "/" + rel) << text;
    fs_->file(dir_ + "/" + rel);
  }
  // `--profile FILE` as run and why apply it; the error as the CLI shows it, or "ok".
  std::string apply(const std::string& file, Policy* out = nullptr) {
    PolicyBuilder b(ctx_);
    auto src = find_profile(file, ctx_);
    if (!src) return src.error().describe();
    if (auto r = apply_profile(*src, b, ctx_); !r) return r.error().describe();
    auto p = b.build();
    if (!p) return p.error().describe();
    if (out != nullptr) *out = *p;
    return "ok";
  }

  std::string dir_;
  std::shared_ptr<FakeFs> fs_;
  HostContext ctx_;
};

TEST_F(ProfileTrust, RelativeExtendsIsBesideTheProfileNotInTheProject) {
  put("prof/user.toml", "extends = \"base.toml\"\n");
  put("prof/base.toml", "[filesystem]\nread_if_exists = [\"/usr/bin\"]\n");
  put("proj/base.toml", "[filesystem]\nread = [\"/secret\"]\n");  // what the agent planted
  Policy p;
  ASSERT_EQ(apply(dir_ + "/prof/user.toml", &p), "ok");
  EXPECT_EQ(p.find_rule("/secret"), nullptr);
  // Without the profile's own base.toml, the project's is still not taken.
  ASSERT_EQ(::unlink((dir_ + "/prof/base.toml").c_str()), 0);
  std::string e = apply(dir_ + "/prof/user.toml");
  EXPECT_NE(e.find(dir_ + "/prof/base.toml"), std::string::npos) << e;
}

TEST_F(ProfileTrust, AProfileTheSandboxCouldWriteIsRefused) {
  put("proj/p.toml", "description = \"in the project\"\n");
  std::string e = apply(dir_ + "/proj/p.toml");
  EXPECT_NE(e.find("the sandbox of this run could change this profile"), std::string::npos) << e;
  EXPECT_NE(e.find("current directory"), std::string::npos) << e;
  // extends reaching into the project is refused the same way, naming the extends position.
  put("prof/user.toml", "extends = \"../proj/p.toml\"\n");
  e = apply(dir_ + "/prof/user.toml");
  EXPECT_NE(e.find("could change this profile"), std::string::npos) << e;
  EXPECT_NE(e.find("user.toml:1:"), std::string::npos) << e;
  // A profile the run's own rule makes writable.
  put("prof/own.toml", "[filesystem]\nallow = [\"" + dir_ + "/prof\"]\n");
  e = apply(dir_ + "/prof/own.toml");
  EXPECT_NE(e.find("could change this profile"), std::string::npos) << e;
}

TEST_F(ProfileTrust, AProfileReachedThroughASymlinkTheSandboxControlsIsRefused) {
  put("prof/real.toml", "description = \"safe\"\n");
  // proj/link -> prof: the file itself is outside, but the sandbox can re-point the link.
  ASSERT_EQ(::symlink((dir_ + "/prof").c_str(), (dir_ + "/proj/link").c_str()), 0);
  fs_->symlink(dir_ + "/proj/link", dir_ + "/prof");
  std::string e = apply(dir_ + "/proj/link/real.toml");
  EXPECT_NE(e.find("could change this profile"), std::string::npos) << e;
  EXPECT_EQ(apply(dir_ + "/prof/real.toml"), "ok");
}

TEST_F(ProfileTrust, SpecialFilesAreRefusedByNameWithoutReading) {
  std::string e = apply("/dev/zero");
  EXPECT_EQ(e, "/dev/zero: a profile must be a regular file, and this is a character device");
  ASSERT_EQ(::mkfifo((dir_ + "/prof/fifo.toml").c_str(), 0600), 0);
  e = apply(dir_ + "/prof/fifo.toml");  // must not block
  EXPECT_NE(e.find("a profile must be a regular file, and this is a FIFO"), std::string::npos) << e;
  ASSERT_EQ(::mkdir((dir_ + "/prof/d.toml").c_str(), 0755), 0);
  put("prof/user.toml", "extends = \"d.toml\"\n");
  e = apply(dir_ + "/prof/user.toml");
  EXPECT_NE(e.find("a profile must be a regular file, and this is a directory"), std::string::npos) << e;
  put("prof/zero.toml", "extends = \"/dev/zero\"\n");
  e = apply(dir_ + "/prof/zero.toml");
  EXPECT_NE(e.find("this is a character device"), std::string::npos) << e;
}

TEST_F(ProfileTrust, ProfilesAreCappedAtOneMebibyte) {
  put("prof/big.toml", "# " + std::string((1 << 20), 'x') + "\n");
  std::string e = apply(dir_ + "/prof/big.toml");
  EXPECT_NE(e.find("a profile is at most 1 MiB"), std::string::npos) << e;
}

}  // namespace
}  // namespace paddock
