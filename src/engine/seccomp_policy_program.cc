// The seccomp programs, precompiled at build time by paddock-seccomp-gen (src/engine/seccomp_gen/):
// the run path does not link libseccomp and compiles nothing.
#include "engine/seccomp_policy.h"

#include "engine/seccomp_policy_rules.h"

namespace paddock::engine {
namespace {

#include "engine/seccomp_programs.inc"  // generated: kProgram*, kRuleNumbers*

bool arg_matches(std::uint64_t value, std::uint64_t mask, std::uint64_t want) { return mask == 0 || (value & mask) == want; }

}  // namespace

std::span<const sock_filter> seccomp_program(const SeccompOptions& opts) {
  if (opts.notify) return opts.deny_inet_sockets ? std::span<const sock_filter>(kProgramInetDeniedNotify)
                                                 : std::span<const sock_filter>(kProgramInetAllowedNotify);
  if (opts.deny_inet_sockets) return kProgramInetDenied;
  return kProgramInetAllowed;
}

std::span<const int> seccomp_rule_numbers(const SeccompOptions& opts) {
  if (opts.deny_inet_sockets) return kRuleNumbersInetDenied;
  return kRuleNumbersInetAllowed;
}

const SeccompRule* denylist_match(const SeccompOptions& opts, int nr, const std::uint64_t (&args)[6]) {
  // Built once per variant: the rule list is constant for the life of the process.
  static const std::vector<SeccompRule> allowed = seccomp_rules({false, false});
  static const std::vector<SeccompRule> denied = seccomp_rules({true, false});
  const std::vector<SeccompRule>& rules = opts.deny_inet_sockets ? denied : allowed;
  std::span<const int> numbers = seccomp_rule_numbers(opts);
  for (std::size_t i = 0; i < rules.size() && i < numbers.size(); ++i) {
    const SeccompRule& r = rules[i];
    if (numbers[i] != nr) continue;
    // As the BPF compares: libseccomp's masked equality on the 64-bit argument.
    if (arg_matches(args[r.arg], r.mask, r.value) && arg_matches(args[r.arg2], r.mask2, r.value2)) return &r;
  }
  return nullptr;
}

}  // namespace paddock::engine
