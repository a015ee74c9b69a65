// The [paddock] footer printed on stderr when a sandboxed command fails: that the failure *may*
// be due to the sandbox, the policy in effect, and the narrowest flags that would grant more.
#pragma once

#include <string>
#include <vector>

#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::cli {

// Lines without the "[paddock] " prefix; empty when no footer is due (success, killed by a
// signal). `extra` holds lines other subsystems add (limits hit, denied hosts).
// `home_from`: the host directory mounted at HOME (a jail's stable HOME), when it is not a fresh one.
std::vector<std::string> footer_lines(const RunResult& r, const Policy& p, const std::vector<std::string>& extra,
                                      const std::string& home_from = {});

// The footer's exact lines for what the sandbox was refused (RunResult::denials), each with the
// narrowest flag that allows it or "no flag allows it"; the egress filter's are left to the
// `network: blocked` lines. Raw: printed through print_prefixed (sys::display).
std::vector<std::string> denial_lines(const std::vector<Denial>& denials);

// What the run left where the host runs or trusts it later (RunResult::left_behind), one block
// on stderr that cannot be missed; nothing when the list is empty.
std::vector<std::string> left_behind_lines(const std::vector<LeftBehind>& left);
void print_left_behind(const std::vector<LeftBehind>& left);

// What the run wrote outside every host-backed path and lost with the sandbox (RunResult::discarded):
// a count, the first few paths and how to keep or refuse such writes; nothing when there was none.
std::vector<std::string> discarded_lines(const DiscardedWrites& d, const Policy& p);

// Prints lines with the "[paddock] " prefix to stderr, each through sys::display: callers put
// names in raw (escaping them first would show their backslashes doubled).
void print_prefixed(const std::vector<std::string>& lines);

// "paddock: <error>" and its hint, on stderr.
void print_error(const Error& e);

}  // namespace paddock::cli
