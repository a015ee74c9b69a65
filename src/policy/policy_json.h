// The policy JSON ("paddock.policy/1", docs/policy-json.md): names shared by the reader/writer
// in policy_json.cc and the direct text writer in policy_json_text.cc.
#pragma once

#include <string>
#include <string_view>

#include "paddock/policy.h"

namespace paddock {

inline constexpr const char* kPolicyJsonVersion = "paddock.policy/1";

std::string_view origin_kind_name(Origin::Kind k);  // "built-in", "profile", "flag", "cwd"

// Exactly the text of policy_to_json(policy).dump(2), written directly: no JSON tree, one
// growing buffer. This is the PADDOCK_POLICY file that every run writes, so it is on the start-up
// path. A test pins both against the same golden text. Strings that are not valid UTF-8 take the
// nlohmann path, so they fail exactly as they did there.
std::string policy_json_text(const Policy& policy);

}  // namespace paddock
