#include "host/project_mount.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "policy/path_util.h"
#include "sys/syscalls.h"

namespace paddock::host {
namespace {

Result<void> write_file(const std::string& path, const std::string& text) {
  sys::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) return errno_error("cannot open", errno, path);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return errno_error("cannot write", errno, path);
  return {};
}

}  // namespace

Result<sys::UniqueFd> idmap_userns(const IdMap& m) {
  int sync_pipe[2];
  if (::pipe2(sync_pipe, O_CLOEXEC) != 0) return errno_error("pipe", errno);
  sys::UniqueFd rd(sync_pipe[0]), wr(sync_pipe[1]);
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return errno_error("pipe", errno);
  sys::UniqueFd ready_rd(ready[0]), ready_wr(ready[1]);
  pid_t pid = ::fork();
  if (pid < 0) return errno_error("fork", errno);
  if (pid == 0) {
    wr.reset();
    ready_rd.reset();
    char ok = ::unshare(CLONE_NEWUSER) == 0 ? 'y' : 'n';
    (void)!::write(ready_wr.get(), &ok, 1);
    char c;
    (void)!::read(rd.get(), &c, 1);  // until the parent has the namespace
    _exit(0);
  }
  rd.reset();
  ready_wr.reset();
  auto finish = [&] {
    wr.reset();
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  };
  char ok = 'n';
  if (::read(ready_rd.get(), &ok, 1) != 1 || ok != 'y') {
    finish();
    return make_error("cannot create a user namespace for the idmapped project mount");
  }
  const std::string proc = "/proc/" + std::to_string(pid);
  Result<void> r = write_file(proc + "/uid_map", std::to_string(m.host_uid) + " " + std::to_string(m.agent_uid) + " 1\n");
  if (r) r = write_file(proc + "/setgroups", "deny\n");
  if (r) r = write_file(proc + "/gid_map", std::to_string(m.host_gid) + " " + std::to_string(m.agent_gid) + " 1\n");
  sys::UniqueFd ns;
  if (r) {
    ns.reset(::open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC));
    if (!ns) r = errno_error("cannot open", errno, proc + "/ns/user");
  }
  finish();
  if (!r) return std::move(r).take_error();
  return ns;
}

std::string first_unsearchable_parent(const std::string& path, uid_t uid, const std::vector<gid_t>& gids) {
  std::string d;
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    if (i == path.size()) break;  // PATH itself: the mount replaces it
    d = path.substr(0, i);
    struct stat st;
    if (::stat(d.c_str(), &st) != 0) return d;
    bool ok;
    if (st.st_uid == uid) ok = st.st_mode & S_IXUSR;
    else if (std::find(gids.begin(), gids.end(), st.st_gid) != gids.end()) ok = st.st_mode & S_IXGRP;
    else ok = st.st_mode & S_IXOTH;
    if (!ok) return d;
  }
  return {};
}

Result<void> private_mount_namespace() {
  if (::unshare(CLONE_NEWNS) != 0) return errno_error("cannot make a mount namespace (unshare)", errno);
  if (::mount("none", "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0)
    return errno_error("cannot make the mounts private", errno, "/");
  return {};
}

Result<sys::UniqueFd> clone_project(int dirfd, int userns_fd, const std::string& path) {
  sys::UniqueFd tree(static_cast<int>(
      sys::open_tree(dirfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH)));
  if (!tree) return errno_error("cannot clone the project's mount (open_tree)", errno, path);
  struct mount_attr attr {};
  attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  attr.userns_fd = static_cast<__u64>(userns_fd);
  if (sys::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attr, sizeof attr) != 0) {
    return errno_error("cannot idmap the project's mount (mount_setattr; the file system must support idmapped "
                       "mounts: ext4, xfs, btrfs, tmpfs from Linux 6.3, ...)",
                       errno, path);
  }
  return tree;
}

Result<void> attach_project(int tree, const std::string& path, const std::string& cover) {
  if (!cover.empty()) {
    if (!path::is_strictly_under(path, cover)) return make_error("not under " + cover, path);
    if (::mount("paddock-host", cover.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=0755,size=64k,nr_inodes=256") != 0)
      return errno_error("cannot cover the directories above the project", errno, cover);
    std::string d = cover;
    std::string rest = path.substr(cover.size() + 1);
    while (!rest.empty()) {
      auto slash = rest.find('/');
      d += "/" + rest.substr(0, slash);
      rest = slash == std::string::npos ? "" : rest.substr(slash + 1);
      if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return errno_error("cannot create", errno, d);
      if (::chmod(d.c_str(), 0755) != 0) return errno_error("cannot set the mode", errno, d);  // whatever the umask
    }
  }
  if (sys::move_mount(tree, "", AT_FDCWD, path.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
    return errno_error("cannot mount the project (move_mount)", errno, path);
  return {};
}

}  // namespace paddock::host
