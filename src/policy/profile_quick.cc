#include "policy/profile_quick.h"

namespace paddock {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Plain printable ASCII (and tabs): what a TOML comment or basic string may hold without any
// question of escapes or encodings.
bool plain(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u != '\t' && (u < 0x20 || u >= 0x7F)) return false;
  }
  return true;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

// `description = "text"` with an optional trailing comment; `text` has no quote or backslash.
bool description_line(std::string_view s) {
  constexpr std::string_view kKey = "description";
  if (s.substr(0, kKey.size()) != kKey) return false;
  s = trim_left(s.substr(kKey.size()));
  if (s.empty() || s.front() != '=') return false;
  s = trim_left(s.substr(1));
  if (s.empty() || s.front() != '"') return false;
  s.remove_prefix(1);
  const auto close = s.find_first_of("\"\\");
  if (close == std::string_view::npos || s[close] != '"') return false;
  s = trim_left(s.substr(close + 1));
  return s.empty() || s.front() == '#';
}

}  // namespace

bool is_description_only_profile(std::string_view text) {
  bool seen_description = false;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!plain(line)) return false;
    line = trim_left(line);
    if (line.empty() || line.front() == '#') continue;
    if (seen_description || !description_line(line)) return false;
    seen_description = true;
  }
  return true;
}

}  // namespace paddock
