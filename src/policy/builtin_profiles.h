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

// The agent profile `paddock run -- COMMAND` picks when no --profile is given: the built-in agent
// profile named as COMMAND's last path component ("claude", "/usr/local/bin/codex", "pi"), or ""
// for any other command. Only exact names: `claude-dev` or `mypi` are not agents paddock knows.
std::string_view agent_profile_for(std::string_view command);

}  // namespace paddock
