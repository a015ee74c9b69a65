// Recognises a profile that only describes itself: comments, blank lines and at most one
// `description = "plain text"`. Such a profile (the built-in `default` is one) changes nothing
// but the policy's profile name, so applying it needs no TOML parser. Anything else, or anything
// the recogniser is unsure about, goes to the full parser.
#pragma once

#include <string_view>

namespace paddock {

bool is_description_only_profile(std::string_view toml_text);

}  // namespace paddock
