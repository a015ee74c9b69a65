#include "net/proxy_env.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace paddock::net {
namespace {

std::optional<std::string> lookup(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& kv : env) {
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 && kv[name.size()] == '=') {
      return kv.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

bool is_no_proxy(std::string_view name) { return name == "NO_PROXY" || name == "no_proxy"; }

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

void append_entries(std::vector<std::string>& out, std::string_view list) {
  while (!list.empty()) {
    auto comma = list.find(',');
    std::string entry = trim(list.substr(0, comma));
    if (!entry.empty() && std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(entry);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

std::string merge_no_proxy(const std::string& user, const std::string& filter) {
  std::vector<std::string> entries;
  append_entries(entries, user);
  append_entries(entries, filter);
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ",") + e;
  return out;
}

ProxyEnvironment proxy_environment(const std::vector<std::pair<std::string, std::string>>& filter_env,
                                   const std::vector<std::string>& env) {
  ProxyEnvironment out;
  for (const auto& [name, value] : filter_env) {
    auto user = lookup(env, name);
    if (!user || *user == value) {
      out.set.emplace_back(name, value);
    } else if (is_no_proxy(name)) {
      out.set.emplace_back(name, merge_no_proxy(*user, value));
    } else {
      out.set.emplace_back(name, value);
      out.warnings.push_back("--env " + name + "=" + *user +
                             " is replaced by the egress filter's proxy (" + value +
                             "): the filter is the sandbox's only way out, and applies the domain rules");
    }
  }
  return out;
}

}  // namespace paddock::net
