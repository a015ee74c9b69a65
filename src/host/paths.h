// Lexical path checks for host.toml's paths (no file system access).
#pragma once

#include <string_view>

namespace paddock::host {

// Absolute, and nothing to normalise: no ".", "..", "//", trailing "/" ("/" itself is normal),
// no control characters.
bool is_normal_absolute(std::string_view p);
// Relative and below its base: not empty, no leading "/", no ".", "..", "//" or trailing "/",
// no control characters.
bool is_normal_relative(std::string_view p);

}  // namespace paddock::host
