// The seccomp denylist: what a coding agent never needs and what is a classic door to escapes or
// kernel attacks. Every entry says why (seccomp_policy.cc); docs/seccomp.md lists them.
//
// The BPF program is compiled at build time: paddock-seccomp-gen (src/engine/seccomp_gen/) runs
// libseccomp over this list for the target architecture and writes both variants as constant
// arrays. The run path only copies one of them into the plan; the child loads it.
#pragma once

#include <linux/filter.h>

#include <span>
#include <string>
#include <vector>

namespace paddock::engine {

struct SeccompOptions {
  // Without a network namespace, "network off" must be enforced here: deny AF_INET/AF_INET6
  // sockets (Landlock only covers TCP bind/connect).
  bool deny_inet_sockets = false;
};

struct SeccompEntry {
  std::string syscall;  // name, or "ioctl(TIOCSTI)", "clone(CLONE_NEWUSER)", ...
  std::string action;   // "EPERM", "ENOSYS"
  std::string why;
};

// The documented list, in the order it is applied.
std::vector<SeccompEntry> seccomp_denylist(const SeccompOptions& opts);

// The precompiled BPF program for the native architecture (static storage, never empty).
// Syscalls from any other ABI (i386 via int 0x80, x32) fail with ENOSYS.
std::span<const sock_filter> seccomp_program(const SeccompOptions& opts);

}  // namespace paddock::engine
