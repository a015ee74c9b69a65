#include "policy/system_paths.h"

namespace paddock {

const std::vector<std::string>& system_paths() {
  static const std::vector<std::string> paths = {
      "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store",
  };
  return paths;
}

}  // namespace paddock
