#include "engine/apparmor.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace paddock::engine {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

// A label is "NAME (MODE)" ("paddock (unconfined)") or "unconfined".
std::string label_name(const std::string& label) {
  std::string l = trim(label);
  auto sp = l.find(" (");
  return sp == std::string::npos ? l : l.substr(0, sp);
}

// /sys/kernel/security/apparmor/profiles: one "NAME (MODE)" line per loaded profile.
bool profile_loaded(const std::string& profiles) {
  std::istringstream in(profiles);
  std::string line;
  while (std::getline(in, line))
    if (label_name(line) == kAppArmorProfileName) return true;
  return false;
}

// The installed file attaches the profile to `path` ("profile paddock /usr/local/bin/paddock ...").
bool installed_for(const std::string& contents, const std::string& path) {
  std::istringstream in(contents);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kw, name, attach;
    if (words >> kw >> name >> attach && kw == "profile" && name == kAppArmorProfileName) return attach == path;
  }
  return false;
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

std::optional<std::string> read_opt(const char* path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

AppArmorStatus apparmor_status(const AppArmorInputs& in) {
  AppArmorStatus s;
  if (!in.enabled) {
    s.detail = "not enabled";
    return s;
  }
  s.restricts_userns = in.restrict_userns && trim(*in.restrict_userns) == "1";
  s.profile_applies = in.self_label && label_name(*in.self_label) == kAppArmorProfileName;
  if (!s.restricts_userns) {
    s.detail = "enabled; does not restrict unprivileged user namespaces";
    return s;
  }
  if (s.profile_applies) {
    s.detail = "restricts unprivileged user namespaces; paddock runs under its profile, which allows them";
    return s;
  }
  // Restricted and unprofiled: say which step is missing.
  const bool installed = in.installed_profile && installed_for(*in.installed_profile, in.self_path);
  const bool loaded = in.loaded_profiles && profile_loaded(*in.loaded_profiles);
  s.detail = "restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1) and no "
             "profile allows them to " + in.self_path + ": ";
  if (installed) {
    // The file is right; the kernel has not got it (or has an older version of it).
    s.detail += std::string(kAppArmorProfileFile) + (loaded ? " is loaded but does not apply: reload it"
                                                            : " is installed but not loaded");
    s.fix = std::string("sudo apparmor_parser -r ") + kAppArmorProfileFile;
    return s;
  }
  s.detail += in.installed_profile ? std::string(kAppArmorProfileFile) + " attaches to another path"
                                   : "paddock's profile is not installed";
  // From a paddock source tree: the binary again at the same place, and the profile for that path.
  s.fix = "sudo scripts/install.sh --prefix " + dir_of(in.self_path);
  return s;
}

AppArmorInputs read_apparmor_inputs() {
  AppArmorInputs in;
  struct stat st;
  in.enabled = stat("/sys/kernel/security/apparmor", &st) == 0;
  in.restrict_userns = read_opt("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  in.loaded_profiles = read_opt("/sys/kernel/security/apparmor/profiles");
  // Newer kernels keep AppArmor's own view apart from other LSMs'.
  in.self_label = read_opt("/proc/self/attr/apparmor/current");
  if (!in.self_label) in.self_label = read_opt("/proc/self/attr/current");
  in.installed_profile = read_opt(kAppArmorProfileFile);
  char buf[PATH_MAX];
  if (realpath("/proc/self/exe", buf)) in.self_path = buf;
  return in;
}

}  // namespace paddock::engine
