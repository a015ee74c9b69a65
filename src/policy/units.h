// Sizes and durations as people write them ("512M", "1.5G", "1h30m", "250ms"), parsed for flags
// and profiles, and formatted back for messages, the footer and the run report.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "paddock/result.h"

namespace paddock {

// A byte count: a number (decimals allowed) with an optional binary unit, case-insensitive:
// "1024", "64k", "512M", "1.5G", "2T", also "512MiB", "512MB", "1g" (all powers of 1024).
// Errors name the value: negative, garbage, a fraction of a byte, zero where not allowed,
// and anything that does not fit in 64 bits.
Result<std::uint64_t> parse_size(std::string_view text);

// A wall-clock duration: one or more number+unit parts, largest unit first:
// "90s", "30m", "2h", "1h30m", "250ms", "1.5h", "1d". A bare number means seconds.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

// The shortest exact spelling when there is one ("2G", "512M", "1536M", "100"), else one
// decimal rounded down ("1.2G"). Round-trips through parse_size for exact values.
std::string format_size(std::uint64_t bytes);

// "30m", "1h30m", "90s" → "1m30s", "250ms", "0s".
std::string format_duration(std::chrono::milliseconds d);

}  // namespace paddock
