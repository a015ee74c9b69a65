// The thin syscall layer: raw wrappers for what glibc 2.36 does not wrap, and kernel-header
// fallbacks (Debian 12's headers predate Landlock ABI 4-6 and some mount API constants).
// Every function here is async-signal-safe: callable between clone and exec.
#pragma once

#include <linux/landlock.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

// ---- Landlock constants newer than the installed headers ----
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

namespace paddock::sys {

// struct landlock_ruleset_attr as of ABI 6 (handled_access_fs, handled_access_net, scoped).
// The kernel accepts a shorter size from older ABIs; we pass the size matching the ABI in use.
struct LandlockRulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};
std::size_t landlock_attr_size(int abi);  // 8 for ABI 1-3, 16 for 4-5, 24 for 6+

int landlock_create_ruleset(const LandlockRulesetAttr* attr, std::size_t size, std::uint32_t flags);
int landlock_add_path_rule(int ruleset_fd, int parent_fd, std::uint64_t allowed_access);
int landlock_restrict_self(int ruleset_fd);
// Highest ABI the kernel offers (0 if Landlock is unavailable; errno tells why).
int landlock_abi_version();

struct Clone3Args {
  std::uint64_t flags;
  std::uint64_t pidfd;
  std::uint64_t child_tid;
  std::uint64_t parent_tid;
  std::uint64_t exit_signal;
  std::uint64_t stack;
  std::uint64_t stack_size;
  std::uint64_t tls;
  std::uint64_t set_tid;
  std::uint64_t set_tid_size;
  std::uint64_t cgroup;
};
// fork-like clone3: returns 0 in the child, the pid in the parent, -1 with errno on failure.
long clone3(Clone3Args* args);
// fork-like clone(2) fallback for kernels without clone3 (no pidfd unless CLONE_PIDFD works).
long clone_fork(unsigned long flags, int* pidfd_out);

int pivot_root(const char* new_root, const char* put_old);
int pidfd_open(pid_t pid, unsigned flags);
int pidfd_send_signal(int pidfd, int sig);

// The new mount API (Linux 5.2; mount_setattr 5.12): -1 with ENOSYS before.
int open_tree(int dirfd, const char* path, unsigned flags);
int move_mount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags);
// mount_setattr(2): ATTR is a struct mount_attr of ATTR_SIZE bytes.
int mount_setattr(int dirfd, const char* path, unsigned flags, const void* attr, std::size_t attr_size);
// mount_setattr(2) with AT_RECURSIVE: sets/clears MOUNT_ATTR_* on a whole mount tree.
int mount_setattr_recursive(const char* path, std::uint64_t attr_set, std::uint64_t attr_clr);
constexpr std::uint64_t kMountAttrRdonly = 0x00000001;
constexpr std::uint64_t kMountAttrNosuid = 0x00000002;
constexpr std::uint64_t kMountAttrNodev = 0x00000004;
constexpr std::uint64_t kMountAttrNoexec = 0x00000008;

// close_range(2); returns -1 with ENOSYS on kernels before 5.9 (CLOEXEC flag: 5.11).
int close_range(unsigned first, unsigned last, unsigned flags);
constexpr unsigned kCloseRangeCloexec = 1U << 2;  // CLOSE_RANGE_CLOEXEC

// capset(2) with a _LINUX_CAPABILITY_VERSION_3 header and its two data words.
int capset(void* header, const void* data);
// seccomp(2): SECCOMP_SET_MODE_FILTER (returns the listener fd with NEW_LISTENER), GET_ACTION_AVAIL.
long seccomp(unsigned op, unsigned flags, void* args);
// getdents64(2): fills BUF with struct linux_dirent64 records; 0 at the end, -1 with errno.
long getdents64(int fd, void* buf, std::size_t len);
// renameat2(2) (RENAME_NOREPLACE: fails with EEXIST instead of replacing; never emulated, since
// a check-then-rename would race with the sandbox).
int renameat2(int old_dirfd, const char* old_path, int new_dirfd, const char* new_path, unsigned flags);
// openat2(2): HOW is a struct open_how of HOW_SIZE bytes. -1 with ENOSYS before Linux 5.6.
long openat2(int dirfd, const char* path, const void* how, std::size_t how_size);

}  // namespace paddock::sys
