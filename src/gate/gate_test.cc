#include "gate/gate.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "gate/agent_config.h"
#include "policy/protected_paths.h"
#include "paddock/state.h"

namespace paddock::gate {
namespace {

constexpr mode_t kFile = S_IFREG | 0644;
constexpr mode_t kDir = S_IFDIR | 0755;

std::optional<Class> cls(std::string_view rel, RootKind k = RootKind::Workspace, mode_t m = kFile) {
  auto v = judge_path(rel, k, m);
  if (!v) return std::nullopt;
  EXPECT_FALSE(v->why.empty()) << rel;
  return v->cls;
}

TEST(JudgePath, OrdinaryProjectFilesPass) {
  EXPECT_EQ(cls("src/main.cc"), std::nullopt);
  EXPECT_EQ(cls("README.md"), std::nullopt);
  EXPECT_EQ(cls("config"), std::nullopt);  // a file named config is only git's inside a git directory
  EXPECT_EQ(cls("docs", RootKind::Workspace, kDir), std::nullopt);
  EXPECT_EQ(cls(".gitignore"), std::nullopt);
  EXPECT_EQ(cls("a/.github/workflows/ci.yml"), std::nullopt);
}

TEST(JudgePath, EveryProtectedEntryAtTheRootAndNested) {
  for (const ProtectedEntry& e : workspace_protected_entries()) {
    EXPECT_TRUE(cls(e.path).has_value()) << e.path;
    EXPECT_TRUE(cls(std::string("pkg/sub/") + e.path).has_value()) << e.path;
    EXPECT_TRUE(cls(std::string("pkg[1]/") + e.path + "/x").has_value()) << e.path;  // glob characters are literal
  }
}

TEST(JudgePath, HomeEntriesAreAnchoredAtHome) {
  for (const ProtectedEntry& e : home_protected_entries()) EXPECT_EQ(cls(e.path, RootKind::Home), Class::HostRun) << e.path;
  for (const KnownConfig& k : known_agent_configs())
    EXPECT_TRUE(cls(k.rel, RootKind::Home).has_value()) << k.rel;
  EXPECT_EQ(cls(".claude.json", RootKind::Home), Class::AgentConfig);
  // A project in HOME keeps its own protected files; HOME's lists apply at HOME only.
  EXPECT_EQ(cls("src/p/.envrc", RootKind::Home), Class::HostRun);
  EXPECT_EQ(cls("src/p/.bashrc", RootKind::Home), std::nullopt);
  EXPECT_EQ(cls(".bashrc", RootKind::Workspace), std::nullopt);
}

TEST(JudgePath, GitControlAndDiscoveryNamesAnywhere) {
  EXPECT_EQ(cls(".git"), Class::Git);
  EXPECT_EQ(cls(".git", RootKind::Workspace, kDir), Class::Git);
  EXPECT_EQ(cls("vendor/lib/.git/config"), Class::Git);
  EXPECT_EQ(cls("sub/.git/hooks/pre-commit"), Class::Git);
  for (const char* n : {"HEAD", "commondir", "gitdir", "config.worktree"}) {
    EXPECT_EQ(cls(n), Class::Git) << n;
    EXPECT_EQ(cls(std::string("a/b/") + n), Class::Git) << n;
  }
}

TEST(JudgePath, ToolchainHooks) {
  EXPECT_EQ(cls(".venv/lib/python3.11/site-packages/evil.pth"), Class::Toolchain);
  EXPECT_EQ(cls("env/lib/python3/dist-packages/x.pth"), Class::Toolchain);
  EXPECT_EQ(cls(".venv/lib/python3.11/site-packages/sitecustomize.py"), Class::Toolchain);
  EXPECT_EQ(cls("anywhere/usercustomize.py"), Class::Toolchain);
  EXPECT_EQ(cls(".venv/pyvenv.cfg"), Class::Toolchain);
  EXPECT_EQ(cls("notes/site.pth"), std::nullopt);  // a .pth outside site-packages is not read
}

TEST(JudgePath, SpecialAndSetIdEntries) {
  EXPECT_EQ(cls("fifo", RootKind::Workspace, S_IFIFO | 0644), Class::Special);
  EXPECT_EQ(cls("dev", RootKind::Workspace, S_IFCHR | 0644), Class::Special);
  EXPECT_EQ(cls("blk", RootKind::Workspace, S_IFBLK | 0644), Class::Special);
  EXPECT_EQ(cls("sock", RootKind::Workspace, S_IFSOCK | 0644), Class::Special);
  EXPECT_EQ(cls("bin/sh", RootKind::Workspace, S_IFREG | 04755), Class::SetId);
  EXPECT_EQ(cls("bin/sh", RootKind::Workspace, S_IFREG | 02755), Class::SetId);
  EXPECT_EQ(cls("bin/sh", RootKind::Workspace, S_IFREG | 0755), std::nullopt);
}

TEST(JudgePath, PaddocksOwnQuarantineIsNeverPublished) {
  EXPECT_EQ(cls(".envrc.paddock-quarantine"), Class::HostRun);
  EXPECT_EQ(cls("sub/.mcp.json.paddock-quarantine.3"), Class::HostRun);
  EXPECT_EQ(cls(".paddock-quarantine.0123456789abcdef"), Class::HostRun);
  EXPECT_EQ(cls(".claude.json.paddock-rejected", RootKind::Home), Class::HostRun);
}

TEST(JudgePath, ShapesThatAreNotPlainRelativePathsAreRefused) {
  for (const char* bad : {"", "/etc/passwd", "a//b", "a/./b", "../x", "a/..", "a/"})
    EXPECT_TRUE(cls(bad).has_value()) << bad;
}

// The check trusts its directory index (dir_index.h): kept only where the sandbox cannot write.
TEST(IndexPlace, OnlyWhereTheSandboxCannotWrite) {
  char tmpl[] = "/tmp/paddock-index-place-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string home = tmpl;
  const std::string state = home + "/.local/state/paddock";
  ASSERT_EQ(std::system(("mkdir -p " + state).c_str()), 0);
  Policy p;
  p.paths.push_back(PathRule{home + "/proj", home + "/proj", Access::ReadWrite, {Origin::Kind::Flag, "--allow"}, false, {}});
  EXPECT_EQ(index_place(p, {}, state).dir, state + "/gate");
  EXPECT_EQ(index_place(p, {}, "").dir, "");
  // A mount that holds it, writable: not there; read-only: there.
  std::vector<SandboxMount> mounts{{"/x", home + "/.local", Access::ReadWrite, 0, {}, {}}};
  EXPECT_EQ(index_place(p, mounts, state).dir, "");
  mounts[0].access = Access::Read;
  EXPECT_EQ(index_place(p, mounts, state).dir, state + "/gate");
  // A writable rule over it: there only when the state is masked (the policy builder always
  // masks it: include/paddock/state.h).
  p.paths.push_back(PathRule{home + "/.local", home + "/.local", Access::ReadWrite, {Origin::Kind::Flag, "--allow"}, false, {}});
  EXPECT_EQ(index_place(p, {}, state).dir, "");
  p.denied.push_back({state, kStateDirReason});
  EXPECT_EQ(index_place(p, {}, state).dir, state + "/gate");
  ASSERT_EQ(std::system(("rm -rf " + home).c_str()), 0);
}

}  // namespace
}  // namespace paddock::gate
