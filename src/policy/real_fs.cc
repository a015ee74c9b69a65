// FsView over the host filesystem: realpath(3) and lstat(2).
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

#include "paddock/policy.h"

namespace paddock {
namespace {

class RealFs final : public FsView {
 public:
  Result<std::string> canonical(const std::string& abs_path) const override {
    char* resolved = ::realpath(abs_path.c_str(), nullptr);
    if (resolved == nullptr) return errno_error("cannot resolve path", errno, abs_path);
    std::string out(resolved);
    std::free(resolved);
    return out;
  }

  Kind kind(const std::string& abs_path) const override {
    struct stat st {};
    if (::lstat(abs_path.c_str(), &st) != 0) return Kind::Missing;
    if (S_ISDIR(st.st_mode)) return Kind::Dir;
    if (S_ISREG(st.st_mode)) return Kind::File;
    return Kind::Other;
  }
};

}  // namespace

std::shared_ptr<FsView> real_fs() {
  static const std::shared_ptr<FsView> fs = std::make_shared<RealFs>();
  return fs;
}

}  // namespace paddock
