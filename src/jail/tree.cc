#include "jail/tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sys/anchored_dir.h"

namespace paddock::jail {
namespace {

constexpr int kMaxDepth = 512;

std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }


Result<void> walk_in(int dirfd, const std::string& rel, const std::string& where, dev_t dev, int depth,
                     const std::function<void(const std::string&, const struct stat&)>& visit,
                     const std::string& skip_top) {
  if (depth > kMaxDepth) return make_error("tree deeper than " + std::to_string(kMaxDepth) + " levels", where + "/" + rel);
  auto names = list_dir(dirfd, where + (rel.empty() ? "" : "/" + rel));
  if (!names) return std::move(names).take_error();
  for (const std::string& n : *names) {
    if (rel.empty() && !skip_top.empty() && n == skip_top) continue;
    struct stat st;
    if (fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return errno_error("cannot stat", errno, where + "/" + join(rel, n));
    }
    const std::string r = join(rel, n);
    visit(r, st);
    if (S_ISDIR(st.st_mode) && st.st_dev == dev) {
      int fd = openat(dirfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        if (errno == ENOENT) continue;
        return errno_error("cannot open directory", errno, where + "/" + r);
      }
      sys::UniqueFd sub(fd);
      if (auto w = walk_in(sub.get(), r, where, dev, depth + 1, visit, skip_top); !w) return w;
    }
  }
  return {};
}

// Copies the regular file NAME in SFD to DFD: a reflink where the filesystem can, else
// copy_file_range (which the kernel may still do as a reflink or server-side copy).
Result<bool> copy_file(int sfd, int dfd, const std::string& name, const struct stat& st, const std::string& where) {
  int in = openat(sfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0) return errno_error("cannot open", errno, where);
  sys::UniqueFd src(in);
  int out = openat(dfd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) return errno_error("cannot create", errno, where);
  sys::UniqueFd dst(out);
  bool reflinked = false;
  if (st.st_size > 0 && ioctl(dst.get(), FICLONE, src.get()) == 0) {
    reflinked = true;
  } else if (st.st_size > 0) {
    loff_t left = st.st_size;
    while (left > 0) {
      ssize_t n = copy_file_range(src.get(), nullptr, dst.get(), nullptr, static_cast<std::size_t>(left), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
        // Plain read/write.
        char buf[1 << 16];
        ssize_t r;
        while ((r = read(src.get(), buf, sizeof(buf))) > 0) {
          for (ssize_t off = 0; off < r;) {
            ssize_t w = write(dst.get(), buf + off, static_cast<std::size_t>(r - off));
            if (w < 0) return errno_error("cannot write", errno, where);
            off += w;
          }
        }
        if (r < 0) return errno_error("cannot read", errno, where);
        break;
      }
      if (n < 0) return errno_error("cannot copy", errno, where);
      if (n == 0) break;  // the file shrank meanwhile
      left -= n;
    }
  }
  if (fchmod(dst.get(), st.st_mode & 07777 & ~06000) != 0) return errno_error("cannot chmod", errno, where);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  futimens(dst.get(), times);
  return reflinked;
}

Result<void> copy_in(int sfd, int dfd, const std::string& rel, const std::string& src_root, dev_t dev, int depth,
                     CopyStats& stats, std::vector<ManifestEntry>* manifest, const CopyProgress& progress) {
  if (depth > kMaxDepth) return make_error("tree deeper than " + std::to_string(kMaxDepth) + " levels", src_root + "/" + rel);
  auto names = list_dir(sfd, src_root + (rel.empty() ? "" : "/" + rel));
  if (!names) return std::move(names).take_error();
  for (const std::string& n : *names) {
    const std::string r = join(rel, n);
    const std::string where = src_root + "/" + r;
    struct stat st;
    if (fstatat(sfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return errno_error("cannot stat", errno, where);
    }
    if (S_ISREG(st.st_mode)) {
      auto c = copy_file(sfd, dfd, n, st, where);
      if (!c) return std::move(c).take_error();
      ++stats.files;
      stats.bytes += static_cast<std::uint64_t>(st.st_size);
      if (*c) ++stats.reflinked;
    } else if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
      ssize_t len = readlinkat(sfd, n.c_str(), target.data(), target.size());
      if (len < 0) return errno_error("cannot read link", errno, where);
      target.resize(static_cast<std::size_t>(len));
      if (symlinkat(target.c_str(), dfd, n.c_str()) != 0) return errno_error("cannot create symlink", errno, where);
      ++stats.symlinks;
    } else if (S_ISDIR(st.st_mode)) {
      if (mkdirat(dfd, n.c_str(), 0700) != 0) return errno_error("cannot create directory", errno, where);
      int s = openat(sfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (s < 0) return errno_error("cannot open directory", errno, where);
      sys::UniqueFd sub_src(s);
      int d = openat(dfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (d < 0) return errno_error("cannot open directory", errno, where);
      sys::UniqueFd sub_dst(d);
      ++stats.dirs;
      if (st.st_dev == dev) {
        if (auto c = copy_in(sub_src.get(), sub_dst.get(), r, src_root, dev, depth + 1, stats, manifest, progress); !c)
          return c;
      }
      if (fchmod(sub_dst.get(), st.st_mode & 07777 & ~06000) != 0) return errno_error("cannot chmod", errno, where);
    } else {
      ++stats.skipped;  // sockets, FIFOs, devices: not part of a project's files
      continue;
    }
    if (manifest) {
      struct stat dst;
      if (fstatat(dfd, n.c_str(), &dst, AT_SYMLINK_NOFOLLOW) != 0) return errno_error("cannot stat copy", errno, where);
      manifest->push_back({r, entry_stat(st), entry_stat(dst)});
    }
    if (progress) progress(stats);
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> list_dir(int dirfd, const std::string& where) {
  int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open directory", errno, where);
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return errno_error("cannot read directory", errno, where);
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  int err = errno;
  closedir(d);
  if (err) return errno_error("cannot read directory", err, where);
  std::sort(names.begin(), names.end());
  return names;
}

EntryStat entry_stat(const struct stat& st) {
  EntryStat e;
  e.type = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : 0;
  e.mode = st.st_mode & 07777;
  e.size = e.type == 'd' ? 0 : static_cast<std::uint64_t>(st.st_size);
  e.ino = st.st_ino;
  e.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  e.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return e;
}

Result<void> walk(int dirfd, const std::string& where,
                  const std::function<void(const std::string&, const struct stat&)>& visit,
                  const std::string& skip_top) {
  struct stat st;
  if (fstat(dirfd, &st) != 0) return errno_error("cannot stat", errno, where);
  return walk_in(dirfd, "", where, st.st_dev, 0, visit, skip_top);
}

Result<CopyStats> copy_tree_manifest(const std::string& src, const std::string& dst,
                                     std::vector<ManifestEntry>* manifest, const CopyProgress& progress) {
  auto s = sys::open_dir_no_symlinks(src);
  if (!s) return std::move(s).take_error();
  auto parts = sys::split_file_path(dst);
  if (!parts) return make_error(parts.error().message, dst);
  auto parent = sys::open_dir_no_symlinks(parts->first);
  if (!parent) return std::move(parent).take_error();
  struct stat st;
  if (fstat(s->get(), &st) != 0) return errno_error("cannot stat", errno, src);
  if (mkdirat(parent->get(), parts->second.c_str(), 0700) != 0) return errno_error("cannot create directory", errno, dst);
  int d = openat(parent->get(), parts->second.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d < 0) return errno_error("cannot open directory", errno, dst);
  sys::UniqueFd dfd(d);
  CopyStats stats;
  if (auto c = copy_in(s->get(), dfd.get(), "", src, st.st_dev, 0, stats, manifest, progress); !c)
    return std::move(c).take_error();
  if (fchmod(dfd.get(), st.st_mode & 0777 & ~022) != 0) return errno_error("cannot chmod", errno, dst);
  return stats;
}

Result<CopyStats> copy_tree(const std::string& src, const std::string& dst) {
  return copy_tree_manifest(src, dst, nullptr);
}

namespace {

// How deep remove_contents() descends holding a descriptor per level before it moves a deeper
// directory up to the top of the tree being removed: a tree thousands of levels deep (a run can
// make one) would otherwise exhaust the descriptors (EMFILE) and be left half removed.
constexpr int kRemoveDepth = 32;

// Makes the directory NAME in DIRFD searchable and writable by its owner when a run (or
// overlayfs's work/work) left it otherwise, through an O_PATH descriptor (no link followed).
void make_removable(int dirfd, const std::string& name, const struct stat& st) {
  if ((st.st_mode & 0700) == 0700) return;
  int p = openat(dirfd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (p < 0) return;
  sys::UniqueFd path_fd(p);
  const std::string proc = "/proc/self/fd/" + std::to_string(p);
  (void)chmod(proc.c_str(), (st.st_mode & 07777) | 0700);
}

// Empties the directory DIR (open), never following a symlink. Directories deeper than
// kRemoveDepth below TOP are renamed into TOP (same filesystem) and emptied from there later.
Result<void> remove_contents(int dir, const std::string& where, int top, int depth, std::uint64_t& moved) {
  auto names = list_dir(dir, where);
  if (!names) return std::move(names).take_error();
  for (const std::string& n : *names) {
    const std::string path = where + "/" + n;
    struct stat st;
    if (fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return errno_error("cannot stat", errno, path);
    }
    if (!S_ISDIR(st.st_mode)) {
      if (unlinkat(dir, n.c_str(), 0) != 0 && errno != ENOENT) return errno_error("cannot remove", errno, path);
      continue;
    }
    make_removable(dir, n, st);
    if (depth >= kRemoveDepth && dir != top) {
      const std::string up = ".paddock-deep-" + std::to_string(getpid()) + "-" + std::to_string(moved++);
      if (renameat(dir, n.c_str(), top, up.c_str()) != 0) return errno_error("cannot move up to remove", errno, path);
      continue;
    }
    int fd = openat(dir, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot open directory", errno, path);
    {
      sys::UniqueFd sub(fd);
      if (auto r = remove_contents(sub.get(), path, top, depth + 1, moved); !r) return r;
    }
    if (unlinkat(dir, n.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
      if (errno == EBUSY) return errno_error("cannot remove (a mount point: is a run still using it?)", errno, path);
      return errno_error("cannot remove", errno, path);
    }
  }
  return {};
}

}  // namespace

Result<void> remove_tree_at(int dirfd, const std::string& name, const std::string& where) {
  struct stat st;
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return errno_error("cannot stat", errno, where);
  }
  if (!S_ISDIR(st.st_mode)) {
    if (unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) return errno_error("cannot remove", errno, where);
    return {};
  }
  make_removable(dirfd, name, st);
  int fd = openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open directory", errno, where);
  {
    sys::UniqueFd top(fd);
    // Until nothing is left: what was moved up from the depths is emptied in the next round.
    std::uint64_t moved = 0;
    for (;;) {
      const std::uint64_t before = moved;
      if (auto r = remove_contents(top.get(), where, top.get(), 0, moved); !r) return r;
      if (moved == before) break;
    }
  }
  if (unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    if (errno == EBUSY) return errno_error("cannot remove (a mount point: is a run still using it?)", errno, where);
    return errno_error("cannot remove", errno, where);
  }
  return {};
}

Result<void> write_manifest(int runtime_dirfd, const std::vector<ManifestEntry>& m) {
  std::string out = "paddock.jail.manifest/1\n";
  out.reserve(m.size() * 96);
  char buf[256];
  for (const auto& e : m) {
    for (const EntryStat* s : {&e.source, &e.workspace}) {
      std::snprintf(buf, sizeof(buf), "%c %o %llu %llu %lld %lld ", s->type ? s->type : '-', s->mode,
                    static_cast<unsigned long long>(s->size), static_cast<unsigned long long>(s->ino),
                    static_cast<long long>(s->mtime_ns), static_cast<long long>(s->ctime_ns));
      out += buf;
    }
    out += e.path;
    out.push_back('\0');
  }
  return sys::write_file_at(runtime_dirfd, "manifest", out, 0600);
}

Result<std::vector<ManifestEntry>> read_manifest(int runtime_dirfd, const std::string& where) {
  int fd = openat(runtime_dirfd, "manifest", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open", errno, where);
  sys::UniqueFd f(fd);
  std::string data;
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(f.get(), buf, sizeof(buf))) > 0) data.append(buf, static_cast<std::size_t>(n));
  if (n < 0) return errno_error("cannot read", errno, where);
  const std::string header = "paddock.jail.manifest/1\n";
  const std::string hint = "the jail's metadata is damaged: paddock jail rm NAME removes the jail";
  if (data.compare(0, header.size(), header) != 0) return make_error("damaged manifest: no header", where, hint);
  std::vector<ManifestEntry> m;
  std::size_t pos = header.size();
  while (pos < data.size()) {
    std::size_t end = data.find('\0', pos);
    if (end == std::string::npos) return make_error("damaged manifest: truncated", where, hint);
    const char* p = data.c_str() + pos;
    ManifestEntry e;
    int used = 0;
    for (EntryStat* s : {&e.source, &e.workspace}) {
      char type;
      unsigned mode;
      unsigned long long size, ino;
      long long mt, ct;
      int k = 0;
      if (std::sscanf(p + used, "%c %o %llu %llu %lld %lld%n", &type, &mode, &size, &ino, &mt, &ct, &k) != 6 || k == 0)
        return make_error("damaged manifest: bad record", where, hint);
      used += k + 1;  // and the one space after the record
      *s = {type == '-' ? char(0) : type, mode, size, ino, mt, ct};
    }
    e.path.assign(p + used, data.c_str() + end);
    m.push_back(std::move(e));
    pos = end + 1;
  }
  return m;
}

}  // namespace paddock::jail
