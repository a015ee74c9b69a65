#include "host/project_mount.h"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace paddock::host {
namespace {

class ProjectMountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/paddock-host-mount-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  std::string dir_;
};

TEST_F(ProjectMountTest, FirstUnsearchableParent) {
  ASSERT_EQ(std::system(("mkdir -p " + dir_ + "/home/u/src/proj && chmod 0700 " + dir_ + "/home/u").c_str()), 0);
  const std::string proj = dir_ + "/home/u/src/proj";
  const uid_t me = ::geteuid();
  // Its owner can enter it; anyone else stops at the 0700 home.
  struct stat st;
  ASSERT_EQ(::stat((dir_ + "/home/u").c_str(), &st), 0);
  EXPECT_EQ(first_unsearchable_parent(proj, st.st_uid, {st.st_gid}), "");
  EXPECT_EQ(first_unsearchable_parent(proj, me + 12345, {static_cast<gid_t>(54321)}), dir_ + "/home/u");
  // A group with x gets through.
  ASSERT_EQ(::chmod((dir_ + "/home/u").c_str(), 0710), 0);
  EXPECT_EQ(first_unsearchable_parent(proj, me + 12345, {st.st_gid}), "");
}

// The idmapped project: the owner's files appear as the agent's, and what the agent writes lands
// on disk as the owner's. Root only; the mounts live in a forked child's namespace.
TEST_F(ProjectMountTest, IdmappedProjectBelongsToItsOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "idmapped mounts need root (the runner is root)";
  const uid_t owner = 42421, agent = 42431;
  const std::string proj = dir_ + "/home/u/proj";
  ASSERT_EQ(std::system(("mkdir -p " + proj + " && echo hi > " + proj + "/mine && chown -R 42421:42421 " + dir_ +
                         "/home/u && chmod 0700 " + dir_ + "/home/u")
                            .c_str()),
            0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto ns = idmap_userns({owner, owner, agent, agent});
    if (!ns) _exit(10);
    sys::UniqueFd dir(::open(proj.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    auto tree = clone_project(dir.get(), ns->get(), proj);
    if (!tree) _exit(11);
    if (!private_mount_namespace()) _exit(12);
    const std::string cover = first_unsearchable_parent(proj, agent, {agent});
    if (cover != dir_ + "/home/u") _exit(13);
    if (!attach_project(tree->get(), proj, cover)) _exit(14);
    struct stat st;
    if (::stat((proj + "/mine").c_str(), &st) != 0 || st.st_uid != agent || st.st_gid != agent) _exit(15);
    if (::setgroups(0, nullptr) != 0 || ::setresgid(agent, agent, agent) != 0 || ::setresuid(agent, agent, agent) != 0)
      _exit(16);
    int fd = ::open((proj + "/written").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) _exit(17);
    ::close(fd);
    // Nothing else of the covered home is there.
    if (::access((dir_ + "/home/u/other").c_str(), F_OK) == 0) _exit(18);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  struct stat st;
  ASSERT_EQ(::stat((proj + "/written").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, owner);
  EXPECT_EQ(st.st_gid, owner);
}

}  // namespace
}  // namespace paddock::host
