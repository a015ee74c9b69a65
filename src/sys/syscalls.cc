#include "sys/syscalls.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

namespace paddock::sys {

std::size_t landlock_attr_size(int abi) {
  if (abi >= 6) return sizeof(std::uint64_t) * 3;
  if (abi >= 4) return sizeof(std::uint64_t) * 2;
  return sizeof(std::uint64_t);
}

int landlock_create_ruleset(const LandlockRulesetAttr* attr, std::size_t size, std::uint32_t flags) {
  return static_cast<int>(::syscall(SYS_landlock_create_ruleset, attr, size, flags));
}

int landlock_add_path_rule(int ruleset_fd, int parent_fd, std::uint64_t allowed_access) {
  struct landlock_path_beneath_attr pb = {};
  pb.allowed_access = allowed_access;
  pb.parent_fd = parent_fd;
  return static_cast<int>(::syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0));
}

int landlock_restrict_self(int ruleset_fd) {
  return static_cast<int>(::syscall(SYS_landlock_restrict_self, ruleset_fd, 0));
}

int landlock_abi_version() {
  int v = landlock_create_ruleset(nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : v;
}

long clone3(Clone3Args* args) { return ::syscall(SYS_clone3, args, sizeof(Clone3Args)); }

long clone_fork(unsigned long flags, int* pidfd_out) {
  // x86_64 argument order: flags, stack, parent_tid, child_tid, tls. With CLONE_PIDFD the pidfd
  // is stored through parent_tid.
  return ::syscall(SYS_clone, flags | SIGCHLD, nullptr, pidfd_out, nullptr, nullptr);
}

int pivot_root(const char* new_root, const char* put_old) {
  return static_cast<int>(::syscall(SYS_pivot_root, new_root, put_old));
}

int pidfd_open(pid_t pid, unsigned flags) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, flags));
}

int pidfd_send_signal(int pidfd, int sig) {
  return static_cast<int>(::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
}

int open_tree(int dirfd, const char* path, unsigned flags) {
  return static_cast<int>(::syscall(SYS_open_tree, dirfd, path, flags));
}

int move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags) {
  return static_cast<int>(::syscall(SYS_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags));
}

int mount_setattr(int dirfd, const char* path, unsigned flags, const void* attr, std::size_t attr_size) {
  return static_cast<int>(::syscall(SYS_mount_setattr, dirfd, path, flags, attr, attr_size));
}

int mount_setattr_recursive(const char* path, std::uint64_t attr_set, std::uint64_t attr_clr) {
  struct {
    std::uint64_t attr_set, attr_clr, propagation, userns_fd;
  } attr = {attr_set, attr_clr, 0, 0};
  return static_cast<int>(::syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof(attr)));
}

int close_range(unsigned first, unsigned last, unsigned flags) {
  return static_cast<int>(::syscall(SYS_close_range, first, last, flags));
}

int capset(void* header, const void* data) { return static_cast<int>(::syscall(SYS_capset, header, data)); }

long seccomp(unsigned op, unsigned flags, void* args) { return ::syscall(SYS_seccomp, op, flags, args); }

long getdents64(int fd, void* buf, std::size_t len) { return ::syscall(SYS_getdents64, fd, buf, len); }

int renameat2(int old_dirfd, const char* old_path, int new_dirfd, const char* new_path, unsigned flags) {
  return static_cast<int>(::syscall(SYS_renameat2, old_dirfd, old_path, new_dirfd, new_path, flags));
}

long openat2(int dirfd, const char* path, const void* how, std::size_t how_size) {
  return ::syscall(SYS_openat2, dirfd, path, how, how_size);
}

}  // namespace paddock::sys
