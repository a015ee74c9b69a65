// Managed settings over the user's synced settings file: a deep merge in which the managed side
// wins. Objects merge key by key, recursively; anything else (arrays, strings, numbers, a key
// whose types differ) is replaced by the managed value whole.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "paddock/result.h"

namespace paddock::host {

nlohmann::json deep_merge(nlohmann::json base, const nlohmann::json& over);

// SYNCED is the user's settings file text ("" when there is none; FILE names it in errors):
// it must hold a JSON object. Returns the merged file text (2-space indented, newline-terminated).
Result<std::string> merge_settings_text(std::string_view synced, const std::string& file, const nlohmann::json& managed);

}  // namespace paddock::host
