#include "host/env.h"

#include <algorithm>
#include <map>

#include "policy/env_names.h"

namespace paddock::host {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool matches(std::string_view name, const std::string& pattern) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.substr(0, pattern.size() - 1) == std::string_view(pattern).substr(0, pattern.size() - 1);
  return name == pattern;
}

}  // namespace

Result<std::vector<EnvVar>> parse_env_text(std::string_view text, const std::string& file, const std::string& layer) {
  std::vector<EnvVar> out;
  std::size_t line_no = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find('\n', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view line = trim(text.substr(i, j - i));
    i = j + 1;
    ++line_no;
    const std::string where = file + ":" + std::to_string(line_no);
    if (line.empty() || line[0] == '#') continue;
    if (line.substr(0, 7) == "export " || line.substr(0, 7) == "export\t") line = trim(line.substr(7));
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) return make_error("expected NAME=VALUE", where);
    std::string name(trim(line.substr(0, eq)));
    if (!valid_env_name(name)) return make_error("\"" + name + "\" is not a valid environment variable name", where, kEnvNameHint);
    std::string_view value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (std::string_view(value).find('\0') != std::string_view::npos) return make_error("a value holds a NUL byte", where);
    out.push_back({name, std::string(value), layer, where});
  }
  return out;
}

std::vector<EnvVar> runtime_env(const std::vector<std::string>& environ, const std::vector<std::string>& patterns) {
  std::vector<EnvVar> out;
  for (const std::string& kv : environ) {
    std::size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = kv.substr(0, eq);
    if (!valid_env_name(name)) continue;
    if (std::none_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return matches(name, p); })) continue;
    if (std::any_of(out.begin(), out.end(), [&](const EnvVar& v) { return v.name == name; })) continue;
    out.push_back({name, kv.substr(eq + 1), "runtime", "the invoking shell"});
  }
  return out;
}

MergedEnv merge_env(const std::vector<std::vector<EnvVar>>& layers) {
  MergedEnv m;
  std::map<std::string, EnvVar> eff;
  for (const auto& layer : layers) {
    for (const EnvVar& v : layer) {
      auto it = eff.find(v.name);
      if (it != eff.end()) {
        m.overridden.push_back(it->second);
        it->second = v;
      } else {
        eff.emplace(v.name, v);
      }
    }
  }
  for (auto& [n, v] : eff) m.effective.push_back(std::move(v));
  return m;
}

}  // namespace paddock::host
