// Environment variable names: validation and the documented safe set.
#pragma once

#include <string_view>

namespace paddock {

inline constexpr const char* kEnvNameHint =
    "names are letters, digits and '_', and do not start with a digit";

// [A-Za-z_][A-Za-z0-9_]*
bool valid_env_name(std::string_view name);

// True when `name` is in safe_env_names() (exactly, or by a "PREFIX*" entry such as "LC_*").
bool is_safe_env_name(std::string_view name);

}  // namespace paddock
