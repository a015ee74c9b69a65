// Profiles in TOML: `--profile NAME|FILE`, built-in `default`, user profiles under
// $XDG_CONFIG_HOME/paddock/profiles/NAME.toml, `extends = "other"`. Errors carry file:line:col.
// The schema is documented in docs/profiles.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "paddock/policy.h"

namespace paddock {

struct ProfileSource {
  std::string name;     // "default", "claude", or the file path when given as a file
  std::string file;     // path of the file, or "<built-in:NAME>"
  std::string text;     // TOML text
};

// Finds a profile by name or file path: a path containing '/' or ending in ".toml" is a file;
// otherwise user profiles dir first, then built-ins.
Result<ProfileSource> find_profile(std::string_view name_or_file, const HostContext& ctx);
std::vector<std::string> builtin_profile_names();
std::string profiles_dir(const HostContext& ctx);  // $XDG_CONFIG_HOME/paddock/profiles

// Applies a profile (and, first, the chain it extends) to a builder. Errors are
// "file:line:col: message" with a hint ("did you mean ...?").
Result<void> apply_profile(const ProfileSource& src, PolicyBuilder& builder, const HostContext& ctx);

}  // namespace paddock
