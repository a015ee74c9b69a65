// The policy flags shared by `run` and `why`: filesystem rules, network, environment, profile.
// Profile first, then flags (flags add to or override the profile).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "paddock/policy.h"

namespace paddock::cli {

struct PolicyFlags {
  // Filesystem rules in command-line order (a later rule for the same path wins).
  std::vector<std::pair<Access, std::string>> rules;
  std::vector<std::string> allow, read, write, env;
  std::string profile = "default";
  bool profile_given = false;  // --profile was on the command line (set by add_policy_flags)
  bool allow_net = false;
  bool require_namespaces = false;
  bool refuse_discarded_writes = false;
};

void add_policy_flags(CLI::App* cmd, PolicyFlags& f);

// Applies the profile, then the flags, to a builder made from `ctx`.
Result<void> apply_policy_flags(const PolicyFlags& f, const HostContext& ctx, PolicyBuilder& b);

}  // namespace paddock::cli
