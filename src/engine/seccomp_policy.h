// The seccomp denylist: what a coding agent never needs and what is a classic door to escapes or
// kernel attacks. Built with libseccomp in the parent; the child only loads the BPF program.
// Every entry says why (seccomp_policy.cc); docs/seccomp.md lists them.
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

#include "paddock/result.h"

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

// Compiles the denylist into a BPF program for the native architecture. Syscalls from any other
// ABI (i386 via int 0x80, x32) fail with ENOSYS.
Result<std::vector<sock_filter>> build_seccomp_program(const SeccompOptions& opts);

}  // namespace paddock::engine
