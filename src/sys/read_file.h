// Reading a whole file paddock itself names (a config, /proc, a cgroup file) into a string.
// Not for paths a sandbox could have written: those go through sys/anchored_dir.h.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace paddock::sys {

// The file's bytes, or nullopt when it cannot be opened.
inline std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace paddock::sys
