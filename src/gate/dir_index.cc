#include "gate/dir_index.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "policy/path_util.h"
#include "sys/anchored_dir.h"
#include "sys/binary_codec.h"
#include "sys/state_dir.h"
#include "sys/unique_fd.h"

namespace paddock::gate {
namespace {

// The file: kMagic, then little-endian fields:
//   u64 fingerprint, u32 area length, area bytes, u64 entry count,
//   per entry (sorted by device, inode, none twice):
//     u64 dev, u64 ino, i64 ctime s, u32 ctime ns, i64 mtime s, u32 mtime ns, u32 hits, u32 subdirs,
//     then each name (hits first) as u16 length and bytes;
//   u64 checksum64 (sys/checksum.h) of everything before it.
constexpr std::string_view kMagic = "paddock-gate-index 1\n";

// A name as a directory entry can hold it: not empty, no '/', no NUL, not "." or "..".
bool entry_name(std::string_view n) {
  return !n.empty() && n.size() <= 255 && n != "." && n != ".." && n.find('/') == std::string_view::npos &&
         n.find('\0') == std::string_view::npos;
}

std::int64_t ns(const struct timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// The whole file FD (the index: at most kMaxFileBytes), or nullopt.
std::optional<std::string> read_all(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0 ||
      static_cast<std::uint64_t>(st.st_size) > DirIndex::kMaxFileBytes)
    return std::nullopt;
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    got += static_cast<std::size_t>(n);
  }
  return out;
}

// DIR, when it is the user's own and closed to others (reached without a symlink).
sys::UniqueFd open_own_dir(const std::string& dir) {
  auto fd = sys::open_dir_no_symlinks(dir);
  if (!fd) return {};
  struct stat st;
  if (fstat(fd->get(), &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) return {};
  return std::move(*fd);
}

}  // namespace

std::string DirIndex::file_for(const std::string& dir, const std::string& area) {
  static const char* hex = "0123456789abcdef";
  std::uint64_t h = sys::fnv1a(area);
  std::string name(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) name[static_cast<std::size_t>(i)] = hex[h & 15];
  return path::join(dir, name + ".index");
}

DirIndex::DirIndex(std::string dir, std::string area, std::uint64_t fingerprint, const struct timespec& now)
    : dir_(std::move(dir)), area_(std::move(area)), fingerprint_(fingerprint), now_(now) {}

DirIndex DirIndex::load(const std::string& dir, const std::string& area, std::uint64_t fingerprint,
                        const struct timespec& now) {
  DirIndex idx(dir, area, fingerprint, now);
  sys::UniqueFd d = open_own_dir(dir);
  if (!d) return idx;
  const std::string file = file_for(dir, area);
  sys::UniqueFd f(openat(d.get(), file.substr(dir.size() + 1).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!f) return idx;
  idx.file_existed_ = true;
  auto text = read_all(f.get());
  if (!text || text->size() < kMagic.size() + 8 || text->compare(0, kMagic.size(), kMagic) != 0) return idx;
  const std::string_view all(*text);
  const std::string_view body = all.substr(0, all.size() - 8);
  std::uint64_t sum;
  std::memcpy(&sum, all.data() + body.size(), sizeof sum);
  if (sum != sys::checksum64(body)) return idx;  // torn

  sys::BinaryReader r(body.substr(kMagic.size()));
  std::uint64_t fp, count;
  std::uint32_t len;
  std::string_view named;
  if (!r.u64(fp) || fp != fingerprint || !r.u32(len) || !r.bytes(len, named) || named != area || !r.u64(count) ||
      count > body.size() / 48)
    return idx;
  std::vector<Entry> entries;
  entries.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    Entry e;
    std::uint64_t cs, ms;
    std::uint32_t cns, mns, hits, subs;
    if (!r.u64(e.key.dev) || !r.u64(e.key.ino) || !r.u64(cs) || !r.u32(cns) || !r.u64(ms) || !r.u32(mns) ||
        !r.u32(hits) || !r.u32(subs) || cns >= 1'000'000'000 || mns >= 1'000'000'000)
      return idx;
    e.ctime = {static_cast<time_t>(cs), static_cast<long>(cns)};
    e.mtime = {static_cast<time_t>(ms), static_cast<long>(mns)};
    for (std::uint64_t k = 0; k < std::uint64_t{hits} + subs; ++k) {
      std::uint16_t n;
      std::string_view name;
      if (!r.u16(n) || !r.bytes(n, name) || !entry_name(name)) return idx;
      (k < hits ? e.listing.hits : e.listing.subdirs).emplace_back(name);
    }
    if (!entries.empty() && !(entries.back().key < e.key)) return idx;  // unsorted or twice: not ours
    entries.push_back(std::move(e));
  }
  if (r.pos() != body.size() - kMagic.size()) return idx;
  idx.loaded_entries_ = std::move(entries);
  idx.loaded_ = idx.loaded_entries_.size();
  idx.loaded_keys_.reserve(idx.loaded_);
  for (const Entry& e : idx.loaded_entries_) idx.loaded_keys_.push_back(e.key);
  return idx;
}

bool DirIndex::settled(const struct stat& st) const {
  const std::int64_t window = st.st_ctim.tv_nsec == 0 ? kCoarseRacyWindowNs : kRacyWindowNs;
  return ns(st.st_ctim) + window < ns(now_);
}

const Listing* DirIndex::find(const struct stat& st) {
  const Key key{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  auto k = std::lower_bound(loaded_keys_.begin(), loaded_keys_.end(), key);
  if (k == loaded_keys_.end() || !(*k == key)) return nullptr;
  auto it = loaded_entries_.begin() + (k - loaded_keys_.begin());
  if (!same_time(it->ctime, st.st_ctim) || !same_time(it->mtime, st.st_mtim)) return nullptr;
  if (!it->found) ++found_;
  it->found = true;
  return &it->listing;
}

void DirIndex::put(const struct stat& st, Listing listing) {
  if (!settled(st)) return;
  Entry e;
  e.key = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  e.ctime = st.st_ctim;
  e.mtime = st.st_mtim;
  e.listing = std::move(listing);
  e.found = true;
  put_entries_.push_back(std::move(e));
  ++new_kept_;
}

Result<void> DirIndex::save() const {
  // The entries to keep, by key; one listed afresh wins over the one loaded for the same inode.
  std::vector<const Entry*> keep;
  for (const Entry& e : put_entries_) keep.push_back(&e);
  for (const Entry& e : loaded_entries_)
    if (e.found) keep.push_back(&e);
  std::stable_sort(keep.begin(), keep.end(), [](const Entry* a, const Entry* b) { return a->key < b->key; });
  keep.erase(std::unique(keep.begin(), keep.end(), [](const Entry* a, const Entry* b) { return a->key == b->key; }),
             keep.end());

  sys::BinaryWriter w;
  w.bytes(kMagic);
  w.u64(fingerprint_);
  w.u32(static_cast<std::uint32_t>(area_.size()));
  w.bytes(area_);
  w.u64(keep.size());
  for (const Entry* e : keep) {
    w.u64(e->key.dev);
    w.u64(e->key.ino);
    w.u64(static_cast<std::uint64_t>(e->ctime.tv_sec));
    w.u32(static_cast<std::uint32_t>(e->ctime.tv_nsec));
    w.u64(static_cast<std::uint64_t>(e->mtime.tv_sec));
    w.u32(static_cast<std::uint32_t>(e->mtime.tv_nsec));
    w.u32(static_cast<std::uint32_t>(e->listing.hits.size()));
    w.u32(static_cast<std::uint32_t>(e->listing.subdirs.size()));
    for (const auto* names : {&e->listing.hits, &e->listing.subdirs})
      for (const std::string& n : *names) {
        w.u16(static_cast<std::uint16_t>(n.size()));
        w.bytes(n);
      }
  }
  w.u64(sys::checksum64(w.out));
  if (w.out.size() > kMaxFileBytes) return make_error("the directory index would exceed its size limit", area_);

  // DIR's parent is paddock's state directory (made before the run); DIR is made in it.
  if (auto made = sys::make_dir_under(path::parent(dir_), dir_, 0700); !made) return std::move(made).take_error();
  sys::UniqueFd d = open_own_dir(dir_);
  if (!d) return make_error("not the user's own directory, or open to others", dir_);
  const std::string file = file_for(dir_, area_);
  const std::string name = file.substr(dir_.size() + 1);
  if (auto wr = sys::write_file_at(d.get(), name, w.out, 0600); !wr) return wr;

  // At most kMaxFiles indexes: the least recently written go first.
  std::vector<std::pair<struct timespec, std::string>> files;
  const int dup_fd = fcntl(d.get(), F_DUPFD_CLOEXEC, 0);
  if (DIR* ls = dup_fd < 0 ? nullptr : fdopendir(dup_fd)) {
    while (dirent* e = readdir(ls)) {
      const std::string_view n = e->d_name;
      if (n.size() < 7 || n.substr(n.size() - 6) != ".index") continue;
      struct stat st;
      if (fstatat(d.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) files.push_back({st.st_mtim, e->d_name});
    }
    closedir(ls);
  } else if (dup_fd >= 0) {
    close(dup_fd);
  }
  if (files.size() > kMaxFiles) {
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return ns(a.first) < ns(b.first); });
    for (std::size_t i = 0; i + kMaxFiles < files.size(); ++i)
      if (files[i].second != name) unlinkat(d.get(), files[i].second.c_str(), 0);
  }
  return {};
}

}  // namespace paddock::gate
