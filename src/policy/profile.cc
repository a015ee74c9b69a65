// Finding profiles: a file path, a user profile under $XDG_CONFIG_HOME/paddock/profiles, or a
// built-in one.
#include "paddock/profile.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "policy/builtin_profiles.h"
#include "policy/path_util.h"

namespace paddock {
namespace {

bool is_file_name(std::string_view s) {
  return s.find('/') != std::string_view::npos ||
         (s.size() > 5 && s.substr(s.size() - 5) == ".toml");
}

bool valid_profile_name(std::string_view s) {
  if (s.empty() || s[0] == '.' || s[0] == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

Result<std::string> read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return errno_error("cannot read profile", errno, file);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return errno_error("cannot read profile", errno, file);
  return ss.str();
}

std::vector<std::string> user_profile_names(const HostContext& ctx) {
  std::vector<std::string> out;
  DIR* dir = ::opendir(profiles_dir(ctx).c_str());
  if (dir == nullptr) return out;
  while (const dirent* e = ::readdir(dir)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.substr(n.size() - 5) == ".toml") out.push_back(n.substr(0, n.size() - 5));
  }
  ::closedir(dir);
  return out;
}

}  // namespace

std::vector<std::string> builtin_profile_names() {
  std::vector<std::string> out;
  for (const auto& p : builtin_profiles()) out.emplace_back(p.name);
  return out;
}

std::string profiles_dir(const HostContext& ctx) {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  std::string base = xdg != nullptr && xdg[0] == '/' ? path::normalize(xdg)
                                                      : path::join(ctx.home, ".config");
  return path::join(base, "paddock/profiles");
}

Result<ProfileSource> find_profile(std::string_view name_or_file, const HostContext& ctx) {
  if (is_file_name(name_or_file)) {
    std::string file = absolute_path(name_or_file, ctx);
    auto text = read_text(file);
    if (!text) return std::move(text).take_error();
    return ProfileSource{file, file, std::move(*text)};
  }
  if (!valid_profile_name(name_or_file)) {
    return make_error("invalid profile name \"" + std::string(name_or_file) + "\"", {},
                      "a name is letters, digits, '-', '_' and '.'; a file path needs a '/' or .toml");
  }
  std::string user_file = path::join(profiles_dir(ctx), std::string(name_or_file) + ".toml");
  if (std::ifstream(user_file).good()) {
    auto text = read_text(user_file);
    if (!text) return std::move(text).take_error();
    return ProfileSource{std::string(name_or_file), user_file, std::move(*text)};
  }
  if (const BuiltinProfile* b = find_builtin_profile(name_or_file)) {
    return ProfileSource{b->name, "<built-in:" + std::string(b->name) + ">", b->toml};
  }
  std::vector<std::string> names = builtin_profile_names();
  for (auto& n : user_profile_names(ctx)) names.push_back(std::move(n));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return make_error("unknown profile \"" + std::string(name_or_file) + "\"", {},
                    "available: " + list + " (user profiles live in " + profiles_dir(ctx) + ")");
}

}  // namespace paddock
