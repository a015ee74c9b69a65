#include "cli/value_sources.h"

#include <dirent.h>

#include <algorithm>
#include <memory>

#include "paddock/jail.h"
#include "paddock/profile.h"
#include "paddock/undo.h"

namespace paddock::cli {
namespace {

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return out;
  while (const dirent* e = ::readdir(d.get())) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  return out;
}

std::vector<std::string> sorted_plain(std::vector<std::string> names) {
  names.erase(std::remove_if(names.begin(), names.end(), [](const std::string& n) { return !plain_name(n); }),
              names.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

bool plain_name(const std::string& name) {
  if (name.empty() || name[0] == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '+' || c == '-';
  });
}

std::vector<std::string> profile_names() {
  std::vector<std::string> out = builtin_profile_names();
  if (auto ctx = HostContext::from_process()) {
    for (const auto& f : entries(profiles_dir(*ctx))) {
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".toml") == 0) out.push_back(f.substr(0, f.size() - 5));
    }
  }
  return sorted_plain(std::move(out));
}

std::vector<std::string> jail_names() {
  auto dir = jail::Store::default_dir();
  if (!dir) return {};
  std::vector<std::string> out;
  for (const auto& n : entries(*dir))
    if (jail::check_name(n)) out.push_back(n);
  return sorted_plain(std::move(out));
}

std::vector<std::string> session_names() {
  auto store = UndoStore::open_default();
  if (!store) return {};
  auto ids = store->session_ids();
  return ids ? sorted_plain(std::move(*ids)) : std::vector<std::string>{};
}

}  // namespace paddock::cli
