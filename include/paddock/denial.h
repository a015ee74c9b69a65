// One thing the sandbox was refused, as paddock knows it exactly: what (a path, host:port or a
// syscall's name), the operation, which layer refused it and which rule or default decided, the
// first process that met it, how often, and when first. In RunResult::denials, the run report
// (`denials`), `paddock run --denials FILE` and `paddock denials` from inside (docs/supervisor.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace paddock {

struct Denial {
  enum class Layer {
    MountHidden,    // the mount namespace: hidden by a sensitive rule, or outside every rule (ENOENT)
    MountReadOnly,  // the mount namespace: a read-only mount written (EROFS)
    Landlock,       // Landlock refused it (EACCES)
    Seccomp,        // the seccomp denylist refused the call (its errno)
    Egress,         // the network: the egress filter refused the target, or the network is off
  };
  Layer layer = Layer::Seccomp;
  std::string what;  // "/home/u/.ssh/id_ed25519", "example.com:443", "mount", "unshare(CLONE_NEWUSER)"
  std::string op;    // "read", "write", "exec", "connect", "syscall"
  std::string rule;  // the rule or default that decided it, in words
  std::string allow_with;  // the narrowest flag that allows it ("--allow-domain x.test"); "" when none can
  int pid = 0;             // the first process that met it (as the sandbox numbers it); 0 when unknown
  std::string comm;        // its command name (/proc/PID/comm), as the sandbox set it
  std::uint64_t count = 0;
  std::int64_t first_unix_ms = 0;  // when it was first met (wall clock, milliseconds)
};

std::string_view to_string(Denial::Layer layer);

}  // namespace paddock
