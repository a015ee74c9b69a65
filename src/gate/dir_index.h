// What each directory of a walked area held, as the after-run walk needs it (walker.h), kept
// between runs so that the walk reads only the directories whose entries moved (issue 29).
//
// The walk looks at a directory's entries by name: most names are nothing to it, and what it
// needs from a listing is only the names a rule looks at (`.git`, HEAD, the protected names,
// toolchains' names: Walker::hit_name) and the subdirectories. A directory's entries cannot change
// without its inode change time (ctime) moving: adding, removing, renaming or linking an entry
// sets it to the current time, and nothing in user space can set it back (utimensat sets mtime,
// and ctime moves with it). So a directory whose device, inode, ctime and mtime are those it had
// when it was listed has the same entries, and the listing kept for it stands for a new one.
// Files rewritten in place do not move their directory; the walk stats the names a rule looks
// at in every directory, indexed or not, and judges each by its own ctime as before.
//
// One soundness rule, as for undo's metadata index and git's racily clean entries: a listing is
// kept only when its directory's ctime was older than the start of the walk that listed it by
// more than the file system's timestamp granularity (kRacyWindow; two seconds where timestamps
// have no sub-second part). A later change then gets a ctime the kept one cannot equal: the
// kernel takes ctime from a clock that was already past it. A directory changed within the window
// is listed again by every walk until it is older.
//
// The index of an area lives in paddock's state (include/paddock/state.h), which no sandbox
// sees: `<state>/gate/<hash of the area's path>.index`, owned by the user, mode 0600 in a 0700
// directory; a versioned binary file with a checksum, written to a temp name, fsynced and renamed.
// It names the rules' names it was built with (a fingerprint of the name table): an index from a
// paddock with other rules is not used. An index that is missing, torn, foreign or not the
// user's is ignored: the walk then lists every directory, as without an index.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "paddock/result.h"
#include "sys/checksum.h"

namespace paddock::gate {

// A directory's listing as the walk uses it.
struct Listing {
  std::vector<std::string> hits;     // entries whose names a rule looks at
  std::vector<std::string> subdirs;  // directories, except a `.git` (git's rules enter it)
};

class DirIndex {
 public:
  // Where the index of AREA (an absolute host path) is kept below DIR.
  static std::string file_for(const std::string& dir, const std::string& area);
  // The index of AREA in DIR, built with the names of FINGERPRINT; empty (nothing found) when
  // there is none or it cannot be trusted. NOW: the start of the walk (CLOCK_REALTIME_COARSE).
  static DirIndex load(const std::string& dir, const std::string& area, std::uint64_t fingerprint,
                       const struct timespec& now);
  // An empty index: nothing found, everything put is kept.
  DirIndex(std::string dir, std::string area, std::uint64_t fingerprint, const struct timespec& now);

  DirIndex(DirIndex&&) = default;
  DirIndex& operator=(DirIndex&&) = default;

  // The listing kept for the directory ST (lstat/fstat of it), when ST is the directory it was
  // kept for and its ctime and mtime have not moved since; the listing is carried into the next
  // save. nullptr: list the directory.
  const Listing* find(const struct stat& st);
  // A listing read just now of the directory ST (stat'ed before it was read): kept unless its
  // ctime lies within the racy window of now.
  void put(const struct stat& st, Listing listing);
  // Whether a directory with this ctime (and mtime) would be kept now.
  bool settled(const struct stat& st) const;

  std::size_t loaded() const { return loaded_; }
  std::size_t found() const { return found_; }
  bool was_loaded() const { return loaded_ > 0 || file_existed_; }
  // Whether saving would change what is kept: a new listing kept, or one loaded and not found
  // again (a directory gone or moved out of the area).
  bool dirty() const { return new_kept_ > 0 || found_ < loaded_; }

  // Writes the listings found and put since load() (and only those) to the index file, creating
  // DIR (0700, no symlink followed) when missing; prunes the oldest index files beyond kMaxFiles.
  Result<void> save() const;

  // The racy window where timestamps have sub-second parts, and where they do not.
  static constexpr std::int64_t kRacyWindowNs = 20'000'000;
  static constexpr std::int64_t kCoarseRacyWindowNs = 2'000'000'000;
  static constexpr std::size_t kMaxFiles = 64;
  static constexpr std::size_t kMaxFileBytes = 256u << 20;

 private:
  struct Key {
    std::uint64_t dev = 0, ino = 0;
    bool operator<(const Key& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
    bool operator==(const Key& o) const { return dev == o.dev && ino == o.ino; }
  };
  struct Entry {
    Key key;
    struct timespec ctime{}, mtime{};
    Listing listing;
    bool found = false;
  };
  static bool same_time(const struct timespec& a, const struct timespec& b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
  }

  std::string dir_, area_;
  std::uint64_t fingerprint_ = 0;
  struct timespec now_{};
  std::vector<Entry> loaded_entries_;  // from the file, sorted by key; never grows (find() points into it)
  std::vector<Key> loaded_keys_;       // their keys, side by side: what find() searches
  std::vector<Entry> put_entries_;     // listed by this walk and settled
  std::size_t loaded_ = 0, found_ = 0, new_kept_ = 0;
  bool file_existed_ = false;
};

}  // namespace paddock::gate
