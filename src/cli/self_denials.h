// `paddock why --self --denials`: from inside a sandbox, what this session was refused so far,
// read from the record paddock keeps bound read-only at $PADDOCK_DENIALS (docs/supervisor.md).
#pragma once

#include <string>
#include <vector>

#include "paddock/denial.h"
#include "paddock/result.h"

namespace paddock::cli {

// The record's JSON lines, the last line of each (layer, what, op) in first-met order; a line
// that does not parse (a torn last line) is skipped and counted in `skipped`.
std::vector<Denial> read_denials(const std::string& text, std::size_t* skipped);

// Prints them (text through sys::display, or a JSON array); exit code: 0, or 2 when there is no
// record here (outside a sandbox, with --exec, in the fallback).
int print_self_denials(bool json);

}  // namespace paddock::cli
