// The denial record (include/paddock/denial.h) built from what each layer knows, and shown: as a
// JSON object (the report, `--denials FILE`, `paddock denials`) and as one footer line.
//
// Every string in a Denial may carry what the sandbox chose (a path it named, a host it asked for,
// its comm). They are kept raw here; whoever prints them escapes them (the footer's printer is
// sys::display, JSON is escaped by the serializer with invalid UTF-8 replaced).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "paddock/denial.h"
#include "paddock/network_decision.h"
#include "paddock/result.h"
#include "paddock/why.h"

namespace paddock::supervisor {

// A path the why engine says is refused (d.allowed false): hidden (a sensitive rule, or outside
// every rule), read-only (a mount or a protected path), or Landlock (the mount allows reading
// but the rule does not grant the operation). `allow_with` is the engine's suggestion.
Denial from_decision(const Decision& d);

// A target the egress filter refused (d.allowed false); the layer is Egress.
Denial from_network(const NetworkDecision& d);

// A call the seccomp denylist refused: `label` as the documented list names it
// ("unshare(CLONE_NEWUSER)"), `error` its errno name, `why` the list's reason. No flag allows it.
Denial from_syscall(std::string_view label, std::string_view error, std::string_view why);

// Stable JSON ("paddock.denial/1" in each object, so a line of `--denials FILE` stands alone).
nlohmann::json to_json(const Denial& d);
// The inverse, for `paddock denials` reading the session's record; an error names the key.
Result<Denial> denial_from_json(const nlohmann::json& j);

// One line for the footer: what, the layer and rule, the count and first process, and the flag.
// Raw (unescaped): print it through sys::display.
std::string describe(const Denial& d);

}  // namespace paddock::supervisor
