#include "host/sync.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "host/paths.h"
#include "sys/anchored_dir.h"
#include "sys/state_dir.h"
#include "sys/unique_fd.h"

namespace paddock::host {
namespace {

struct Walker {
  const SyncLimits& lim;
  std::vector<SyncedFile> out;
  std::uint64_t bytes = 0;
  std::set<std::pair<dev_t, ino_t>> seen_dirs;

  Result<void> dir(int fd, const std::string& rel, int depth) {
    if (depth > lim.max_depth) return make_error("is nested deeper than " + std::to_string(lim.max_depth) + " levels", rel);
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
      int e = errno;
      ::close(fd);
      return errno_error("cannot list", e, rel.empty() ? "." : rel);
    }
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(std::move(n));
    }
    std::sort(names.begin(), names.end());
    Result<void> r;
    for (const std::string& n : names) {
      std::string child = rel.empty() ? n : rel + "/" + n;
      if (out.size() >= lim.max_entries) {
        r = make_error("has more than " + std::to_string(lim.max_entries) + " entries", child);
        break;
      }
      // Follows symlinks, as the user would.
      sys::UniqueFd cfd(::openat(::dirfd(d), n.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
      if (!cfd) {
        // A dangling link, a loop, a socket, or what the user may not read (a link to /etc/shadow):
        // not copied.
        if (errno == ENOENT || errno == ELOOP || errno == ENXIO || errno == EACCES || errno == EPERM) continue;
        r = errno_error("cannot read", errno, child);
        break;
      }
      struct stat st;
      if (::fstat(cfd.get(), &st) != 0) {
        r = errno_error("cannot read", errno, child);
        break;
      }
      if (S_ISDIR(st.st_mode)) {
        if (!seen_dirs.insert({st.st_dev, st.st_ino}).second) continue;
        out.push_back({child, true, static_cast<mode_t>((st.st_mode & 0777) | 0700), {}});
        r = dir(cfd.release(), child, depth + 1);
        if (!r) break;
      } else if (S_ISREG(st.st_mode)) {
        SyncedFile f{child, false, static_cast<mode_t>((st.st_mode & 0777) | 0600), {}};
        char buf[65536];
        while (true) {
          ssize_t k = ::read(cfd.get(), buf, sizeof buf);
          if (k < 0 && errno == EINTR) continue;
          if (k < 0) {
            r = errno_error("cannot read", errno, child);
            break;
          }
          if (k == 0) break;
          bytes += static_cast<std::uint64_t>(k);
          if (bytes > lim.max_bytes) {
            r = make_error("the config dir holds more than " + std::to_string(lim.max_bytes >> 20) + " MiB", child);
            break;
          }
          f.data.append(buf, static_cast<std::size_t>(k));
        }
        if (!r) break;
        out.push_back(std::move(f));
      }
      // FIFOs, devices, sockets: skipped.
    }
    ::closedir(d);
    return r;
  }
};

void put_u64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
bool get_u64(std::string_view& s, std::uint64_t& v) {
  if (s.size() < 8) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
  s.remove_prefix(8);
  return true;
}

constexpr std::string_view kMagic = "paddock-host-tree/1\n";

}  // namespace

Result<std::vector<SyncedFile>> read_tree(const std::string& dir, const SyncLimits& limits) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::vector<SyncedFile>{};
    return errno_error("cannot open the config dir", errno, dir);
  }
  Walker w{limits, {}, 0, {}};
  struct stat st;
  if (::fstat(fd, &st) == 0) w.seen_dirs.insert({st.st_dev, st.st_ino});
  if (auto r = w.dir(fd, "", 0); !r) {
    Error e = r.error();
    e.where = dir + "/" + e.where;
    return e;
  }
  return std::move(w.out);
}

std::string serialize_tree(const std::vector<SyncedFile>& files) {
  std::string s(kMagic);
  for (const SyncedFile& f : files) {
    s.push_back(f.dir ? 'd' : 'f');
    put_u64(s, f.mode);
    put_u64(s, f.rel.size());
    s += f.rel;
    put_u64(s, f.data.size());
    s += f.data;
  }
  return s;
}

Result<std::vector<SyncedFile>> parse_tree(std::string_view s) {
  if (s.substr(0, kMagic.size()) != kMagic) return make_error("not a config tree (bad header)");
  s.remove_prefix(kMagic.size());
  std::vector<SyncedFile> out;
  std::set<std::string> dirs;
  while (!s.empty()) {
    SyncedFile f;
    char kind = s[0];
    s.remove_prefix(1);
    if (kind != 'd' && kind != 'f') return make_error("bad entry kind in the config tree");
    f.dir = kind == 'd';
    std::uint64_t mode = 0, n = 0, m = 0;
    if (!get_u64(s, mode) || !get_u64(s, n) || n > s.size()) return make_error("truncated config tree");
    f.rel = std::string(s.substr(0, n));
    s.remove_prefix(n);
    if (!get_u64(s, m) || m > s.size()) return make_error("truncated config tree");
    f.data = std::string(s.substr(0, m));
    s.remove_prefix(m);
    if (!is_normal_relative(f.rel) || (f.dir && !f.data.empty()))
      return make_error("bad path in the config tree", f.rel);
    // Parents come first, as read_tree writes them: nothing can be placed through an unlisted name.
    auto slash = f.rel.rfind('/');
    if (slash != std::string::npos && !dirs.count(f.rel.substr(0, slash)))
      return make_error("an entry before its directory in the config tree", f.rel);
    f.mode = static_cast<mode_t>(mode & 0777);
    if (f.dir) dirs.insert(f.rel);
    out.push_back(std::move(f));
  }
  return out;
}

Result<void> write_tree(const std::string& home, const std::string& rel, const std::vector<SyncedFile>& files) {
  if (!is_normal_relative(rel)) return make_error("not a normal relative path", rel);
  const std::string base = home + "/" + rel;
  if (auto made = sys::make_dir_under(home, base, 0700); !made) return std::move(made).take_error();
  for (const SyncedFile& f : files) {
    if (!is_normal_relative(f.rel)) return make_error("bad path", f.rel);
    const std::string target = base + "/" + f.rel;
    if (f.dir) {
      if (auto made = sys::make_dir_under(home, target, 0700); !made) return std::move(made).take_error();
      continue;
    }
    auto slash = target.rfind('/');
    const std::string parent = target.substr(0, slash);
    // make_dir_under refuses a symlink on the way; open_dir_no_symlinks opens with none followed.
    if (parent != home) {
      if (auto made = sys::make_dir_under(home, parent, 0700); !made) return std::move(made).take_error();
    }
    auto dir = sys::open_dir_no_symlinks(parent);
    if (!dir) return std::move(dir).take_error();
    // write_file_at replaces the name (a symlink planted there is replaced, never followed).
    if (auto w = sys::write_file_at(dir->get(), target.substr(slash + 1), f.data, (f.mode & 0777) | 0600); !w)
      return w;
  }
  return {};
}

}  // namespace paddock::host
