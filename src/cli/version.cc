#include "cli/version.h"

#include "cli/build_info.h"  // generated: cmake/build_info.cmake

namespace paddock::cli {

std::string version_text() {
  return std::string("paddock ") + PADDOCK_VERSION + " (commit " + PADDOCK_COMMIT + ", " + PADDOCK_BUILD_TYPE + ")";
}

}  // namespace paddock::cli
