#include "host/paths.h"

#include <algorithm>

namespace paddock::host {
namespace {

bool components_ok(std::string_view p) {
  if (std::any_of(p.begin(), p.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return false;
  std::size_t i = 0;
  while (i <= p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view c = p.substr(i, j - i);
    if (c.empty() || c == "." || c == "..") return false;
    i = j + 1;
  }
  return true;
}

}  // namespace

bool is_normal_absolute(std::string_view p) {
  if (p.empty() || p[0] != '/') return false;
  if (p == "/") return true;
  return components_ok(p.substr(1));
}

bool is_normal_relative(std::string_view p) {
  if (p.empty() || p[0] == '/') return false;
  return components_ok(p);
}

}  // namespace paddock::host
