// Finding profiles: a file path, a user profile under $XDG_CONFIG_HOME/paddock/profiles, or a
// built-in one.
#include "paddock/profile.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "policy/builtin_profiles.h"
#include "policy/path_util.h"
#include "sys/unique_fd.h"

namespace paddock {
namespace {

constexpr off_t kMaxProfileBytes = 1 << 20;

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

// What a non-regular file is, for the refusal.
const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// A profile is a regular file of at most kMaxProfileBytes (issue 18): /dev/zero, a FIFO or a
// directory is refused by name before it is opened (and again after, on the descriptor, in case
// it was swapped), so nothing can make paddock block or grow without bound reading its policy.
Result<std::string> read_text(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return errno_error("cannot read profile", errno, file);
  if (!S_ISREG(st.st_mode)) {
    return make_error(file + ": a profile must be a regular file, and this is " + kind_of(st.st_mode));
  }
  sys::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) return errno_error("cannot read profile", errno, file);
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot read profile", errno, file);
  if (!S_ISREG(st.st_mode)) {
    return make_error(file + ": a profile must be a regular file, and this is " + kind_of(st.st_mode));
  }
  if (st.st_size > kMaxProfileBytes) {
    return make_error(file + ": a profile is at most 1 MiB, and this is " + std::to_string(st.st_size) + " bytes");
  }
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read profile", errno, file);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > static_cast<std::size_t>(kMaxProfileBytes)) {
      return make_error(file + ": a profile is at most 1 MiB (it grew while being read)");
    }
  }
  return text;
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
  struct stat st;
  if (::lstat(user_file.c_str(), &st) == 0) {  // present, whatever it is: read_text refuses non-files
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
