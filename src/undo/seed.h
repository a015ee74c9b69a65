// A session's first snapshot is seeded from the last snapshot of an earlier session with the same
// roots (issue 29): that manifest is its metadata index, as the previous snapshot is within a
// session (scan.h: a file whose dev, inode, size, mtime and ctime match, and whose ctime is older
// than that scan's start by the racy window, keeps its object without being read), and the first
// snapshot is stored as a delta against it (store.h). Reading that manifest from the store means
// parsing a full manifest and the deltas after it (100 ms and more for 100,000 files), so the
// last snapshot of each run is also kept whole in a binary *seed*:
//
//   <store>/seeds/<16 hex digits: FNV-1a of the roots>   the manifest of SESSION:N, and which it is
//
// A seed is a cache of a manifest the store holds: it is used only while that session is in the
// store (a pruned one's seed names a snapshot that is gone), and only when whole (a checksum) and
// of the same roots; otherwise the last snapshot of the newest session with the same roots is read
// from the store, and without one the first snapshot reads every file, as before.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paddock/result.h"
#include "undo/manifest.h"

namespace paddock::undo {

struct Seed {
  std::string session;
  int n = 0;
  Manifest manifest;
};

// The seed file's name for ROOTS (in order).
std::string seed_name(const std::vector<std::string>& roots);
std::string serialize_seed(const Seed& s);
// WHERE names the file in errors.
Result<Seed> parse_seed(std::string_view bytes, const std::string& where);

}  // namespace paddock::undo
