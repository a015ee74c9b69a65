#include "undo/scan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>

#include "undo/sha256.h"

namespace paddock::undo {

Result<std::string> hash_fd(int fd, std::uint64_t& bytes) {
  Sha256 h;
  char buf[1 << 16];
  for (off_t off = 0;;) {
    ssize_t n = sys::retry_eintr([&] { return ::pread(fd, buf, sizeof(buf), off); });
    if (n < 0) return errno_error("read");
    if (n == 0) break;
    h.update(buf, n);
    off += n;
    bytes += n;
  }
  return h.hex_digest();
}

bool same_meta(const FileStat& a, const FileStat& b) {
  return a.type == b.type && a.dev == b.dev && a.ino == b.ino && a.size == b.size && a.mtime_ns == b.mtime_ns &&
         a.ctime_ns == b.ctime_ns;
}

Result<void> read_file_content(TreeFs& fs, const std::string& root, const std::string& path, int fd,
                               const FileStat& stat, Store* store, ScanStats& stats, ManifestEntry& e) {
  ++stats.files_hashed;
  Result<std::string> h = std::string();
  if (store != nullptr) {
    bool is_new = false;
    h = store->put_object(fd, &stats.bytes_new, &is_new);
    if (is_new) ++stats.objects_new;
    stats.bytes_read += stat.size;
  } else {
    h = hash_fd(fd, stats.bytes_read);
  }
  if (!h) {
    Error err = std::move(h).take_error();
    if (err.where.empty()) err.where = root + "/" + path;
    return err;
  }
  e.hash = *h;
  // Changed while it was read: its metadata is not trusted next time (ctime 0 never matches).
  auto after = fs.stat(path);
  if (!after || !same_meta(*after, stat)) e.st.ctime_ns = 0;
  return {};
}

Result<RootManifest> scan_root(TreeFs& fs, const std::string& root, const std::vector<Exclude>& excludes,
                               const RootManifest* prev, Store* store, ScanStats& stats,
                               const ScanProgress& progress, std::uint64_t max_bytes_new) {
  return scan_root(fs, root, excludes, [prev] { return prev; }, store, stats, progress, max_bytes_new);
}

Result<RootManifest> scan_root(TreeFs& fs, const std::string& root, const std::vector<Exclude>& excludes,
                               const PrevIndex& prev_later, Store* store, ScanStats& stats,
                               const ScanProgress& progress, std::uint64_t max_bytes_new) {
  RootManifest out;
  out.root = root;
  out.excludes = excludes;
  // Before anything is stat'ed (the read-ahead included): the racy window counts from here.
  out.started_ns = fs.now_ns();

  auto root_st = fs.stat("");
  if (!root_st) return std::move(root_st).take_error();
  if (root_st->type != EntryType::Dir) return make_error("not a directory", root);
  out.entries.push_back({"", *root_st, {}, {}});
  // The listings read ahead (tree_fs.h) skip what the walk skips; the index is found meanwhile.
  fs.read_ahead([&](const std::string& path, const std::string& name) { return excluded(excludes, path, name); });
  struct EndReadAhead {
    TreeFs& fs;
    ~EndReadAhead() { fs.end_read_ahead(); }
  } end_read_ahead{fs};
  const RootManifest* prev = prev_later ? prev_later() : nullptr;
  if (prev != nullptr) out.entries.reserve(prev->entries.size() + prev->entries.size() / 16);
  // Entries the previous scan saw with a ctime this close to its start are read again.
  const std::int64_t trusted_before = prev ? prev->started_ns - fs.timestamp_granularity_ns() : 0;

  // PREV is in path_less order, as the walk is: it is merged in with a cursor (no hash map). An
  // entry out of order is only missed: its file is read again.
  std::size_t cursor = 0;
  auto prev_entry = [&](const std::string& path) -> const ManifestEntry* {
    if (prev == nullptr) return nullptr;
    const auto& pe = prev->entries;
    while (cursor < pe.size() && path_less(pe[cursor].path, path)) ++cursor;
    return cursor < pe.size() && pe[cursor].path == path ? &pe[cursor] : nullptr;
  };

  std::uint64_t last_progress = 0;
  // Depth-first, children in name order: entries come out in path_less order.
  std::function<Result<void>(const std::string&)> walk = [&](const std::string& dir) -> Result<void> {
    auto children = fs.list(dir);
    if (!children) {
      if (dir.empty()) return std::move(children).take_error();
      // An unreadable directory is left out of the scope (never restored over): said, not guessed.
      out.excludes.push_back({Exclude::Kind::Path, dir, "unreadable: " + children.error().describe()});
      return {};
    }
    auto by_name = [](const TreeChild& a, const TreeChild& b) { return a.name < b.name; };
    if (!std::is_sorted(children->begin(), children->end(), by_name))
      std::sort(children->begin(), children->end(), by_name);
    for (auto& c : *children) {
      std::string path = join_rel(dir, c.name);
      if (excluded(excludes, path, c.name)) continue;
      ManifestEntry e{path, c.st, {}, {}};
      switch (c.st.type) {
        case EntryType::File: {
          const ManifestEntry* p = prev_entry(path);
          if (p != nullptr && same_meta(p->st, c.st) && p->st.ctime_ns < trusted_before && !p->hash.empty()) {
            e.hash = p->hash;
            break;
          }
          auto fd = fs.open_file(path);
          if (!fd) {
            if (fd.error().sys_errno == ENOENT) continue;  // gone since the listing
            out.excludes.push_back({Exclude::Kind::Path, path, "unreadable: " + fd.error().describe()});
            continue;
          }
          if (auto r = read_file_content(fs, root, path, fd->get(), c.st, store, stats, e); !r) return r;
          if (stats.bytes_new > max_bytes_new)
            return make_error("the snapshot would store more than the " + std::to_string(max_bytes_new) +
                                  " bytes left of the run's undo budget", root + "/" + path);
          break;
        }
        case EntryType::Symlink: {
          auto t = fs.read_link(path);
          if (!t) {
            if (t.error().sys_errno == ENOENT) continue;
            return std::move(t).take_error();
          }
          e.target = *t;
          break;
        }
        case EntryType::Dir:
        case EntryType::Fifo:
          break;
        case EntryType::Other:
          out.notes.push_back(path + ": a socket or device: recorded, never recreated");
          break;
      }
      const bool is_dir = e.st.type == EntryType::Dir;
      out.entries.push_back(std::move(e));
      ++stats.entries;
      if (progress && stats.entries - last_progress >= 1000) {
        last_progress = stats.entries;
        progress(stats);
      }
      if (is_dir) {
        if (auto r = walk(path); !r) return r;
      }
    }
    return {};
  };
  if (auto r = walk(""); !r) return std::move(r).take_error();
  return out;
}

}  // namespace paddock::undo
