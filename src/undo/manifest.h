// A snapshot's manifest: every entry of the capture scope with its metadata and, for files, the
// name (SHA-256) of the object holding its content. One text file per snapshot, versioned:
//
//   paddock-undo-manifest 1
//   root /home/u/proj            one section per root (a writable path of the policy)
//   started 1764175501123456789  when the scan began (ns): the racily-clean check
//   exclude name node_modules    what was left out (also shown by `undo show`)
//   e f 0644 120 <mtime> <ctime> <ino> <dev> <uid> <gid> <sha256> src/main.c
//   e l 0777 9 ... - link <target>
//   end 2                        entries in the file: a torn file is refused
//
// Paths and targets are escaped (bytes below 0x21, 0x7f, '\' as \xNN), so a name with spaces or
// newlines stays one field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "paddock/result.h"
#include "undo/tree_fs.h"

namespace paddock::undo {

// 2: snapshots after the first are stored as deltas (below); the full format is unchanged and
// version 1 files are still read.
inline constexpr int kManifestVersion = 2;
// 3: a delta whose base is another session's snapshot (a session's first snapshot seeded from the
// last one of an earlier session with the same roots: docs/undo.md). Only such deltas carry it.
inline constexpr int kCrossSessionDeltaVersion = 3;

struct ManifestEntry {
  std::string path;  // relative to the root; "" is the root itself
  FileStat st;
  std::string hash;    // files
  std::string target;  // symlinks
};

struct Exclude {
  enum class Kind { Name, Path };
  Kind kind = Kind::Name;
  std::string pattern;  // Name: a file name matched at any depth; Path: relative to the root
  std::string why;      // "default", "profile x.toml", "--undo-exclude", "paddock's own state", ...
};

// The entries of one root, sorted with path_less (a directory before its contents).
struct RootManifest {
  std::string root;  // absolute
  std::int64_t started_ns = 0;
  std::vector<Exclude> excludes;
  std::vector<ManifestEntry> entries;
  std::vector<std::string> notes;  // entries seen but not captured (sockets, devices), unreadable

  const ManifestEntry* find(const std::string& path) const;
  void index() const;  // builds the lookup map (find calls it when needed)
  void entries_changed() const { by_path_.clear(); }  // after ENTRIES is changed in place

 private:
  mutable std::unordered_map<std::string, std::size_t> by_path_;
};

struct Manifest {
  std::vector<RootManifest> roots;
  const RootManifest* find_root(const std::string& root) const;
};

bool excluded(const std::vector<Exclude>& ex, const std::string& rel, const std::string& name);

// Every field the same (metadata included): what a delta leaves out.
bool same_full_entry(const ManifestEntry& a, const ManifestEntry& b);
// The entry at PATH in R (entries in path_less order), or nullptr: a binary search.
const ManifestEntry* find_sorted(const RootManifest& r, const std::string& path);

// Snapshot n as a change to snapshot BASE (n-1): for each root its own start, excludes and notes,
// its entry count, and every path whose entry differs, with the entry before and after (nullopt:
// no entry). One text file:
//
//   paddock-undo-delta 2
//   base 3
//   root /home/u/proj
//   started 1764175501123456789
//   exclude name node_modules default
//   entries 100001               the root's entries once applied
//   - e f 0644 ... src/main.c    before ("- none <path>": there was none)
//   + e f 0644 ... src/main.c    after  ("+ none <path>": gone)
//   end 1                        changes in the file: a torn file is refused
struct DeltaChange {
  std::string path;
  std::optional<ManifestEntry> before, after;
};
struct RootDelta {
  RootManifest meta;  // root, start, excludes, notes: no entries
  std::uint64_t entries = 0;
  std::vector<DeltaChange> changes;  // path_less order
};
struct Delta {
  int base = 0;
  std::string base_session;  // empty: BASE is a snapshot of the same session (n - 1)
  std::vector<RootDelta> roots;
};

// The delta from A to B (the same roots, both in path order).
Delta make_delta(int base, const Manifest& a, const Manifest& b);
std::string serialize_delta(const Delta& d);
Result<Delta> parse_delta(const std::string& text, const std::string& where);
// M (snapshot D.base) becomes the snapshot D describes. Every "before" must match M's entry:
// a delta applied to the wrong snapshot is refused (M is then unusable: dropped by the caller).
Result<void> apply_delta(Manifest& m, const Delta& d, const std::string& where);

std::string serialize_manifest(const Manifest& m);
// WHERE names the file in errors ("…/3.manifest:17: …").
Result<Manifest> parse_manifest(const std::string& text, const std::string& where);

std::string escape_field(const std::string& s);
Result<std::string> unescape_field(std::string_view s);

// One entry as an "e ..." line (with its newline), and back from the fields of such a line
// starting at F[FIRST] (the "e"): shared by manifests and deltas.
void append_entry(std::string& out, const ManifestEntry& e);
Result<ManifestEntry> parse_entry_fields(const std::vector<std::string_view>& f, std::size_t first);

}  // namespace paddock::undo
