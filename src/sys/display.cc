#include "sys/display.h"

#include <cstdint>

namespace paddock::sys {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void escape_bytes(std::string& out, std::string_view bytes) {
  for (unsigned char c : bytes) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

// The length of the valid UTF-8 sequence at S[I] and its code point, or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF are not valid).
std::size_t utf8_at(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n;
  std::uint32_t min;
  if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07, min = 0x10000;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

bool shown_as_is(std::uint32_t cp) {
  if (cp >= 0x80 && cp <= 0x9f) return false;      // C1 controls
  if (cp >= 0x202a && cp <= 0x202e) return false;  // bidirectional embeddings and overrides
  if (cp >= 0x2066 && cp <= 0x2069) return false;  // bidirectional isolates
  return true;
}

}  // namespace

std::string display(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\') {
      out += "\\\\";
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      escape_bytes(out, s.substr(i, 1));
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else {
      std::uint32_t cp = 0;
      const std::size_t n = utf8_at(s, i, cp);
      if (n == 0) {
        escape_bytes(out, s.substr(i, 1));
        ++i;
      } else {
        if (shown_as_is(cp)) out.append(s.substr(i, n));
        else escape_bytes(out, s.substr(i, n));
        i += n;
      }
    }
  }
  return out;
}

}  // namespace paddock::sys
