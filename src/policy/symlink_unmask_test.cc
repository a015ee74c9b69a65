// Issue 12, item 5: a symlink planted in one run must not unmask a secret (or unprotect a file
// the host runs) in the next: only a rule that names the path literally lifts the mask.
#include <gtest/gtest.h>

#include <memory>

#include "paddock/policy.h"
#include "policy/fake_fs.h"

namespace paddock {
namespace {

std::shared_ptr<FakeFs> tree() {
  auto fs = std::make_shared<FakeFs>();
  fs->dir("/usr/bin").dir("/etc");
  fs->dir("/home/u/proj/.git/hooks").file("/home/u/proj/.git/config");
  fs->dir("/home/u/.ssh").file("/home/u/.ssh/id_ed25519");
  fs->dir("/home/u/dotfiles/aws").symlink("/home/u/.aws", "dotfiles/aws");
  // What a sandbox could have left in the project in an earlier run:
  fs->symlink("/home/u/proj/vendor", "/home/u/.ssh");
  fs->symlink("/home/u/proj/hooks-link", "/home/u/proj/.git/hooks");
  return fs;
}

HostContext ctx_for(std::shared_ptr<FakeFs> fs) {
  HostContext ctx;
  ctx.cwd = "/home/u/proj";
  ctx.home = "/home/u";
  ctx.user = "u";
  ctx.fs = std::move(fs);
  return ctx;
}

TEST(SymlinkUnmask, ASensitivePathReachedThroughASymlinkIsRefused) {
  PolicyBuilder b(ctx_for(tree()));
  b.allow("vendor", Access::Read, {Origin::Kind::Flag, "--read vendor"});
  auto p = b.build();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().where, "--read vendor");
  EXPECT_NE(p.error().message.find("/home/u/proj/vendor leads through a symlink to /home/u/.ssh"),
            std::string::npos)
      << p.error().describe();
  EXPECT_NE(p.error().hint.find("/home/u/.ssh"), std::string::npos);
}

TEST(SymlinkUnmask, NamingTheSensitivePathItselfStillWorks) {
  PolicyBuilder b(ctx_for(tree()));
  b.allow("~/.ssh", Access::Read, {Origin::Kind::Flag, "--read ~/.ssh"});
  b.allow("~/.aws", Access::Read, {Origin::Kind::Flag, "--read ~/.aws"});  // itself a symlink: the user's own
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  for (const auto& d : p->denied) {
    EXPECT_NE(d.path, "/home/u/.ssh");
    EXPECT_NE(d.path, "/home/u/dotfiles/aws");
  }
}

TEST(SymlinkUnmask, AProtectedDirectoryReachedThroughASymlinkStaysProtected) {
  PolicyBuilder b(ctx_for(tree()));
  b.allow("hooks-link", Access::ReadWrite, {Origin::Kind::Flag, "--allow hooks-link"});
  auto p = b.build();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  bool hooks_protected = false;
  for (const auto& pp : p->protected_paths) hooks_protected = hooks_protected || pp.path == "/home/u/proj/.git/hooks";
  EXPECT_TRUE(hooks_protected);
  // Named literally, the user's exception holds.
  PolicyBuilder literal(ctx_for(tree()));
  literal.allow(".git/hooks", Access::ReadWrite, {Origin::Kind::Flag, "--allow .git/hooks"});
  auto q = literal.build();
  ASSERT_TRUE(q.ok()) << q.error().describe();
  for (const auto& pp : q->protected_paths) EXPECT_NE(pp.path, "/home/u/proj/.git/hooks");
}

}  // namespace
}  // namespace paddock
