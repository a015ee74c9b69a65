// `paddock why`: which rule decides an access, in words and as stable JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "paddock/policy.h"

namespace paddock {

struct Decision {
  enum class Kind {
    Rule,        // a PathRule grants or limits it (the deepest rule containing the path wins)
    Denied,      // a sensitive path, hidden
    Protected,   // a file the host executes later, kept read-only
    Virtual,     // a sandbox-private area: HOME tmpfs, /tmp, /dev, /proc
    NotVisible,  // no rule covers it: it does not exist inside the sandbox
  };
  std::string path;        // the canonical path that was asked about
  Op op = Op::Read;
  bool allowed = false;
  Kind kind = Kind::NotVisible;
  Access access = Access::None;  // what the sandbox has on this path
  std::string rule_path;         // the rule / denied / protected / virtual path that decided
  std::string origin;            // Origin::detail of the deciding rule, or the list's reason
  std::string reason;            // one sentence for people
  std::string suggestion;        // the narrowest flag that would allow it ("--read /x"), if any
};
std::string_view to_string(Decision::Kind k);

// Explains an access to a path (absolute, or relative to policy.cwd). Pure: no syscalls except
// through `fs` to canonicalise the path when it exists.
Decision explain_path(const Policy& policy, std::string_view path, Op op, const FsView& fs);

// Stable JSON (documented in docs/why.md); version field "paddock.why/1".
nlohmann::json to_json(const Decision& d);
// Several lines of text for people.
std::string to_text(const Decision& d);

}  // namespace paddock
