#include "policy/units.h"

#include <cctype>
#include <limits>
#include <optional>

namespace paddock {
namespace {

using u128 = unsigned __int128;

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A decimal number "123" or "1.25": integer part, fraction digits (at most 9 kept) and scale.
struct Decimal {
  u128 whole = 0;
  u128 frac = 0;        // the fraction digits as an integer
  u128 frac_scale = 1;  // 10^(digits kept)
  bool has_frac = false;
};

// Consumes a number at the front of `s`. nullopt if there is no digit, or it is absurdly long.
std::optional<Decimal> take_decimal(std::string_view& s) {
  Decimal d;
  std::size_t i = 0;
  bool any = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    d.whole = d.whole * 10 + static_cast<unsigned>(s[i] - '0');
    if (d.whole > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
    ++i;
    any = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    d.has_frac = true;
    bool frac_digit = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (d.frac_scale < 1000000000) {
        d.frac = d.frac * 10 + static_cast<unsigned>(s[i] - '0');
        d.frac_scale *= 10;
      }
      ++i;
      frac_digit = true;
    }
    if (!frac_digit) return std::nullopt;  // "1." is a typo, not a number
  }
  if (!any && !d.has_frac) return std::nullopt;
  s.remove_prefix(i);
  return d;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<u128> size_multiplier(std::string_view unit) {
  std::string u = lower(unit);
  if (u.empty() || u == "b") return 1;
  static constexpr const char kLetters[] = "kmgtpe";
  for (int i = 0; kLetters[i] != '\0'; ++i) {
    std::string l(1, kLetters[i]);
    if (u == l || u == l + "b" || u == l + "ib") return u128{1} << (10 * (i + 1));
  }
  return std::nullopt;
}

}  // namespace

Result<std::uint64_t> parse_size(std::string_view text) {
  const std::string_view s0 = trim(text);
  auto bad = [&](std::string why) {
    return make_error("invalid size " + quoted(text) + ": " + why, {},
                      "write a number with an optional unit: 1024, 64k, 512M, 1.5G");
  };
  if (s0.empty()) return bad("empty");
  if (s0.front() == '-') return bad("a size cannot be negative");
  std::string_view s = s0;
  if (s.front() == '+') s.remove_prefix(1);
  std::optional<Decimal> d = take_decimal(s);
  if (!d) {
    if (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front())))
      return bad("too large");
    return bad("not a number");
  }
  std::optional<u128> mult = size_multiplier(s);
  if (!mult) return bad("unknown unit " + quoted(s) + " (use k, M, G, T)");
  if (d->has_frac && *mult == 1) return bad("a fraction of a byte");
  u128 value = d->whole * *mult + d->frac * *mult / d->frac_scale;
  if (value > std::numeric_limits<std::uint64_t>::max()) return bad("too large");
  return static_cast<std::uint64_t>(value);
}

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  const std::string_view s0 = trim(text);
  auto bad = [&](std::string why) {
    return make_error("invalid duration " + quoted(text) + ": " + why, {},
                      "write e.g. 90s, 30m, 1h30m, 250ms, 2h");
  };
  if (s0.empty()) return bad("empty");
  if (s0.front() == '-') return bad("a duration cannot be negative");
  std::string_view s = s0;
  // Milliseconds per unit, largest first; each unit may appear once, in this order.
  struct Unit {
    const char* name;
    std::uint64_t ms;
  };
  static constexpr Unit kUnits[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000},
                                    {"s", 1000},     {"ms", 1}};
  constexpr int kUnitCount = 5;
  constexpr u128 kMax = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  u128 total = 0;
  int next_unit = 0;  // units must come in decreasing order
  bool first = true;
  while (!s.empty()) {
    std::optional<Decimal> d = take_decimal(s);
    if (!d) {
      if (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) return bad("too large");
      return bad(first ? "not a number" : "expected a number after the unit");
    }
    std::size_t n = 0;
    while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
    std::string unit = lower(s.substr(0, n));
    s.remove_prefix(n);
    if (unit.empty()) {
      if (!first || !s.empty()) return bad("missing unit (use ms, s, m, h, d)");
      unit = "s";  // a bare number is seconds
    }
    int found = -1;
    for (int i = 0; i < kUnitCount; ++i)
      if (unit == kUnits[i].name) found = i;
    if (found < 0) return bad("unknown unit " + quoted(unit) + " (use ms, s, m, h, d)");
    if (found < next_unit) return bad("units must go from largest to smallest, each once");
    next_unit = found + 1;
    total += d->whole * kUnits[found].ms + d->frac * kUnits[found].ms / d->frac_scale;
    if (total > kMax) return bad("too large");
    first = false;
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(total));
}

std::string format_size(std::uint64_t bytes) {
  static constexpr const char kLetters[] = "KMGTPE";
  // Exact in the largest unit that divides it.
  for (int i = 5; i >= 0; --i) {
    const std::uint64_t mult = std::uint64_t{1} << (10 * (i + 1));
    if (bytes >= mult && bytes % mult == 0) return std::to_string(bytes / mult) + kLetters[i];
  }
  if (bytes < 1024) return std::to_string(bytes);
  // Not exact: one decimal in the largest unit not above the value.
  int i = 0;
  while (i < 5 && bytes >= (std::uint64_t{1} << (10 * (i + 2)))) ++i;
  const std::uint64_t mult = std::uint64_t{1} << (10 * (i + 1));
  const std::uint64_t tenths = static_cast<std::uint64_t>(
      static_cast<u128>(bytes) * 10 / mult);  // rounded down: never more than the value
  std::string out = std::to_string(tenths / 10);
  if (tenths % 10 != 0) out += "." + std::to_string(tenths % 10);
  return out + kLetters[i];
}

std::string format_duration(std::chrono::milliseconds d) {
  std::int64_t ms = d.count();
  if (ms < 0) return "-" + format_duration(std::chrono::milliseconds(-ms));
  if (ms == 0) return "0s";
  std::string out;
  const std::int64_t h = ms / 3600000;
  ms %= 3600000;
  const std::int64_t m = ms / 60000;
  ms %= 60000;
  const std::int64_t s = ms / 1000;
  ms %= 1000;
  if (h) out += std::to_string(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (s) out += std::to_string(s) + "s";
  if (ms) out += std::to_string(ms) + "ms";
  return out;
}

}  // namespace paddock
