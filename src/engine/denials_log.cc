#include "engine/denials_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "supervisor/denial.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock {

Result<std::function<void(const Denial&)>> open_denials_log(const std::string& path) {
  auto parts = sys::split_file_path(path);
  if (!parts) return make_error(parts.error().message, "--denials " + path);
  auto dir = sys::open_dir_no_symlinks(parts->first);
  if (!dir) return make_error(dir.error().describe(), "--denials " + path, dir.error().hint);
  auto fd = std::make_shared<sys::UniqueFd>(
      ::openat(dir->get(), parts->second.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!*fd) return make_error(std::string("cannot open: ") + std::strerror(errno), "--denials " + path);
  return std::function<void(const Denial&)>([fd](const Denial& d) {
    std::string text = supervisor::to_json(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (::write(fd->get(), text.data(), text.size()) == static_cast<ssize_t>(text.size())) (void)!fdatasync(fd->get());
  });
}

}  // namespace paddock
