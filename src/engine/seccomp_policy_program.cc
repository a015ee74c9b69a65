// The seccomp programs, precompiled at build time by paddock-seccomp-gen (src/engine/seccomp_gen/):
// the run path does not link libseccomp and compiles nothing.
#include "engine/seccomp_policy.h"

namespace paddock::engine {
namespace {

#include "engine/seccomp_programs.inc"  // generated: kProgramInetAllowed, kProgramInetDenied

}  // namespace

std::span<const sock_filter> seccomp_program(const SeccompOptions& opts) {
  if (opts.deny_inet_sockets) return kProgramInetDenied;
  return kProgramInetAllowed;
}

}  // namespace paddock::engine
