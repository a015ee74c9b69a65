// Ubuntu 23.10 and later refuse unprivileged user namespaces to programs without an AppArmor
// profile that allows them (kernel.apparmor_restrict_unprivileged_userns=1): paddock then falls
// back to Landlock + seccomp. packaging/apparmor/paddock is that profile; scripts/install.sh
// installs and loads it. This tells `doctor` which case the host is in and the one command that
// fixes it, from the files' contents alone so tests can give it any host.
#pragma once

#include <optional>
#include <string>

namespace paddock::engine {

// Where the profile is installed (scripts/install.sh) and the name it declares.
inline constexpr const char* kAppArmorProfileFile = "/etc/apparmor.d/paddock";
inline constexpr const char* kAppArmorProfileName = "paddock";

struct AppArmorInputs {
  bool enabled = false;                      // /sys/kernel/security/apparmor exists
  std::optional<std::string> restrict_userns;  // /proc/sys/kernel/apparmor_restrict_unprivileged_userns
  std::optional<std::string> loaded_profiles;  // /sys/kernel/security/apparmor/profiles (root only)
  std::optional<std::string> self_label;       // /proc/self/attr/current: the profile paddock runs under
  std::optional<std::string> installed_profile;  // kAppArmorProfileFile's contents
  std::string self_path;                     // paddock's own binary, symlinks resolved
};

struct AppArmorStatus {
  bool restricts_userns = false;  // the kernel refuses user namespaces to unprofiled programs
  bool profile_applies = false;   // paddock runs under its own profile (which allows them)
  std::string detail;             // one line for doctor
  std::string fix;                // the one command that gives paddock namespaces back; empty if none needed
};

AppArmorStatus apparmor_status(const AppArmorInputs& in);
// Reads the real files for apparmor_status().
AppArmorInputs read_apparmor_inputs();

}  // namespace paddock::engine
