#include "policy/path_util.h"

#include <vector>

namespace paddock::path {

std::string normalize(std::string_view abs_path) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < abs_path.size()) {
    while (i < abs_path.size() && abs_path[i] == '/') ++i;
    std::size_t j = i;
    while (j < abs_path.size() && abs_path[j] != '/') ++j;
    std::string_view part = abs_path.substr(i, j - i);
    if (part.empty() || part == ".") {
      // nothing
    } else if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else {
      parts.push_back(part);
    }
    i = j;
  }
  if (parts.empty()) return "/";
  std::string out;
  for (auto part : parts) {
    out += '/';
    out += part;
  }
  return out;
}

std::string join(std::string_view dir, std::string_view rel) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += rel;
  return out;
}

std::string parent(std::string_view abs_path) {
  auto slash = abs_path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(abs_path.substr(0, slash));
}

bool is_at_or_under(std::string_view p, std::string_view root) {
  if (root == "/") return !p.empty() && p[0] == '/';
  if (p.size() < root.size() || p.substr(0, root.size()) != root) return false;
  return p.size() == root.size() || p[root.size()] == '/';
}

bool is_strictly_under(std::string_view p, std::string_view root) {
  return p != root && is_at_or_under(p, root);
}

}  // namespace paddock::path
