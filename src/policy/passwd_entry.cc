#include "policy/passwd_entry.h"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <charconv>
#include <vector>

namespace paddock {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Calls f(line) for each line; stops when f returns false.
template <typename F>
void each_line(std::string_view text, F f) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!f(line)) return;
  }
}

// True when nsswitch.conf has one passwd line and its first source is plain `files` (no action
// right after it).
bool files_first(std::string_view nsswitch) {
  std::optional<std::string_view> sources;
  int lines = 0;
  each_line(nsswitch, [&](std::string_view line) {
    line = trim(line.substr(0, line.find('#')));
    if (line.substr(0, 7) == "passwd:" && ++lines == 1) sources = trim(line.substr(7));
    return true;
  });
  if (lines != 1) return false;  // none (glibc's built-in default) or several: leave it to glibc
  const auto end = sources->find_first_of(" \t");
  if (sources->substr(0, end) != "files") return false;
  const std::string_view rest = end == std::string_view::npos ? std::string_view() : trim(sources->substr(end));
  return rest.empty() || rest.front() != '[';
}

bool read_small_file(const char* path, std::string& out) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = true;
  std::size_t used = 0;
  out.resize(4096);
  while (true) {
    if (used == out.size()) {
      if (out.size() >= (1u << 22)) {  // a passwd file of many thousands of users: ask NSS
        ok = false;
        break;
      }
      out.resize(out.size() * 2);
    }
    const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n == 0) break;
    if (n < 0) {
      ok = false;
      break;
    }
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  return ok;
}

}  // namespace

std::optional<PasswdEntry> passwd_from_files(unsigned uid, std::string_view nsswitch_conf,
                                             std::string_view etc_passwd) {
  if (!files_first(nsswitch_conf)) return std::nullopt;
  std::optional<PasswdEntry> found;
  bool unusual = false;
  each_line(etc_passwd, [&](std::string_view line) {
    if (line.empty()) return true;
    // name:password:uid:gid:gecos:dir:shell. Anything else (NIS compat "+"/"-" lines, comments,
    // a wrong number of fields) is left to glibc's own reading.
    std::string_view f[7];
    std::size_t n = 0, start = 0;
    for (; n < 6; ++n) {
      const auto colon = line.find(':', start);
      if (colon == std::string_view::npos) break;
      f[n] = line.substr(start, colon - start);
      start = colon + 1;
    }
    f[6] = line.substr(start);
    if (n != 6 || f[6].find(':') != std::string_view::npos || line.front() == '+' || line.front() == '-' ||
        line.front() == '#') {
      unusual = true;
      return false;
    }
    unsigned v = 0;
    auto [p, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), v);
    if (f[2].empty() || ec != std::errc() || p != f[2].data() + f[2].size() || v != uid) return true;
    found = PasswdEntry{std::string(f[0]), std::string(f[5])};
    return false;  // the first match, as getpwuid
  });
  if (unusual) return std::nullopt;
  return found;
}

std::optional<PasswdEntry> lookup_passwd(unsigned uid) {
  std::string nsswitch, passwd;
  if (read_small_file("/etc/nsswitch.conf", nsswitch) && read_small_file("/etc/passwd", passwd)) {
    if (auto e = passwd_from_files(uid, nsswitch, passwd)) return e;
  }
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return std::nullopt;
  return PasswdEntry{found->pw_name ? found->pw_name : "", found->pw_dir ? found->pw_dir : ""};
}

}  // namespace paddock
