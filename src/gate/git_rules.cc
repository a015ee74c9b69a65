#include "gate/git_rules.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include "sys/unique_fd.h"

namespace paddock::gate::git {
namespace {

bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Up to MAX bytes of NAME in DIR, following a symlink as git's open() does; nullopt when it
// cannot be opened or read.
std::optional<std::string> read_some(int dir, const char* name, std::size_t max) {
  sys::UniqueFd f(openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!f) return std::nullopt;
  struct stat st;
  if (fstat(f.get(), &st) != 0 || S_ISDIR(st.st_mode)) return std::nullopt;
  if (!S_ISREG(st.st_mode)) return std::nullopt;  // a FIFO or device: git would block or fail on it
  std::string out;
  char buf[4096];
  while (out.size() < max) {
    ssize_t n = read(f.get(), buf, std::min(sizeof buf, max - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

bool valid_head_text(std::string_view text) {
  if (text.size() > 255) text = text.substr(0, 255);  // git reads sizeof(buffer)-1 bytes
  if (text.rfind("ref:", 0) == 0) {
    std::string_view r = text.substr(4);
    while (!r.empty() && std::isspace(static_cast<unsigned char>(r.front()))) r.remove_prefix(1);
    if (r.rfind("refs/", 0) == 0) return true;
  }
  // get_oid_hex_any: SHA-1's 40 hexadecimal digits (SHA-256's 64 start with them), whatever follows.
  if (text.size() < 40) return false;
  for (std::size_t i = 0; i < 40; ++i)
    if (!hex(text[i])) return false;
  return true;
}

bool valid_head(int dir, const char* name) {
  struct stat st;
  if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  if (S_ISLNK(st.st_mode)) {
    char target[256];
    ssize_t n = readlinkat(dir, name, target, sizeof target - 1);
    return n >= 5 && std::string_view(target, static_cast<std::size_t>(n)).rfind("refs/", 0) == 0;
  }
  auto text = read_some(dir, name, 255);
  return text && valid_head_text(*text);
}

std::optional<std::string> commondir_text(int dir) {
  struct stat st;
  if (fstatat(dir, "commondir", &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;  // git's file_exists
  auto text = read_some(dir, "commondir", 1u << 20);
  if (!text || text->empty()) return std::string();
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
  return text;
}

std::optional<std::string> gitfile_target(std::string_view text) {
  if (text.rfind("gitdir: ", 0) != 0) return std::nullopt;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() < 9) return std::nullopt;
  return std::string(text.substr(8));
}

bool todo_runs_commands(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.rfind("exec", 0) == 0) return true;  // skip_prefix(bol, "exec"): whatever follows
    if (!line.empty() && line.front() == 'x' &&
        (line.size() == 1 || line[1] == ' ' || line[1] == '\t' || line[1] == '\r'))
      return true;
  }
  return false;
}

bool is_git_directory(int dir, int common) {
  if (!valid_head(dir)) return false;
  const int c = common >= 0 ? common : dir;
  struct stat st;
  return fstatat(c, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 && fstatat(c, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

}  // namespace paddock::gate::git
