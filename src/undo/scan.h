// Walking a tree into a RootManifest. Cost is proportional to the change: a regular file whose
// (dev, inode, size, mtime, ctime) match the previous manifest keeps its object without being
// opened, unless its ctime fell within one clock tick of the previous scan's start (it could have
// changed again without its ctime moving: such files are read again, like git's racily-clean
// entries).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

#include "undo/manifest.h"
#include "undo/store.h"
#include "undo/tree_fs.h"

namespace paddock::undo {

struct ScanStats {
  std::uint64_t entries = 0;
  std::uint64_t files_hashed = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t objects_new = 0;
  std::uint64_t bytes_new = 0;
};
using ScanProgress = std::function<void(const ScanStats&)>;

// The SHA-256 of FD's content (read from offset 0); BYTES counts what was read.
Result<std::string> hash_fd(int fd, std::uint64_t& bytes);
// The same metadata (type, dev, inode, size, mtime, ctime): a file that kept them kept its content.
bool same_meta(const FileStat& a, const FileStat& b);

// The content of the file at PATH, open on FD (STAT: its metadata before it was opened): stored in
// STORE when given (pending until Store::commit_objects), else only hashed; STATS counts it.
// E.hash is set; when the file changed while it was read, E.st.ctime_ns becomes 0 so that its
// metadata is never trusted next time. Errors name ROOT/PATH.
Result<void> read_file_content(TreeFs& fs, const std::string& root, const std::string& path, int fd,
                               const FileStat& stat, Store* store, ScanStats& stats, ManifestEntry& e);

// Scans FS (rooted at ROOT, an absolute path recorded in the manifest). PREV, when given, is the
// metadata index. With STORE, the content of every file read is stored (pending until
// Store::commit_objects); without, files are only hashed. The scan stops with an error as soon as
// STATS.bytes_new exceeds MAX_BYTES_NEW (a run's undo budget: at most one file past it is read).
Result<RootManifest> scan_root(TreeFs& fs, const std::string& root, const std::vector<Exclude>& excludes,
                               const RootManifest* prev, Store* store, ScanStats& stats,
                               const ScanProgress& progress = {},
                               std::uint64_t max_bytes_new = std::numeric_limits<std::uint64_t>::max());
// The same with the metadata index given late: PREV_LATER is called once, after the scan's start
// is taken and the tree's listings are read ahead (tree_fs.h) and before the walk, so that what
// finds the index (a session's first one: the seed, seed.h) is read meanwhile.
using PrevIndex = std::function<const RootManifest*()>;
Result<RootManifest> scan_root(TreeFs& fs, const std::string& root, const std::vector<Exclude>& excludes,
                               const PrevIndex& prev_later, Store* store, ScanStats& stats,
                               const ScanProgress& progress = {},
                               std::uint64_t max_bytes_new = std::numeric_limits<std::uint64_t>::max());

}  // namespace paddock::undo
