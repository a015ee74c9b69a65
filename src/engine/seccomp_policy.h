// The seccomp denylist: what a coding agent never needs and what is a classic door to escapes or
// kernel attacks. Every entry says why (seccomp_policy.cc); docs/seccomp.md lists them.
//
// The BPF program is compiled at build time: paddock-seccomp-gen (src/engine/seccomp_gen/) runs
// libseccomp over this list for the target architecture and writes both variants as constant
// arrays. The run path only copies one of them into the plan; the child loads it.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paddock::engine {

struct SeccompOptions {
  // Without a network namespace, "network off" must be enforced here: deny AF_INET/AF_INET6
  // sockets (Landlock only covers TCP bind/connect).
  bool deny_inet_sockets = false;
  // The denylist's entries return SECCOMP_RET_USER_NOTIF instead of SECCOMP_RET_ERRNO: the filter
  // is loaded with a listener, and paddock's supervisor (denylist_supervisor.h) answers every
  // notification with the entry's errno and records it by name. The decision stays in BPF; the
  // answer is never success. Without a listener (it was closed) every entry fails with ENOSYS.
  bool notify = false;
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

// The entry of the list a notified call matched, from the call's registers alone (seccomp_data:
// the kernel's copy, not the sandbox's memory), first match in the list's order; null when none
// matches (the supervisor then refuses with EPERM: never success).
struct SeccompRule;
const SeccompRule* denylist_match(const SeccompOptions& opts, int nr, const std::uint64_t (&args)[6]);
// The syscall numbers the precompiled program resolved for seccomp_rules(opts), in its order
// (-1: not on this architecture).
std::span<const int> seccomp_rule_numbers(const SeccompOptions& opts);

}  // namespace paddock::engine
