// The profiles compiled into paddock (`--profile default`, `claude`, `codex`). TOML text in the
// same schema as user profiles (docs/profiles.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paddock {

struct BuiltinProfile {
  const char* name;
  const char* toml;
};

const std::vector<BuiltinProfile>& builtin_profiles();
const BuiltinProfile* find_builtin_profile(std::string_view name);

}  // namespace paddock
