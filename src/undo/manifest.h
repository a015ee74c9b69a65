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
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "paddock/result.h"
#include "undo/tree_fs.h"

namespace paddock::undo {

inline constexpr int kManifestVersion = 1;

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

 private:
  mutable std::unordered_map<std::string, std::size_t> by_path_;
};

struct Manifest {
  std::vector<RootManifest> roots;
  const RootManifest* find_root(const std::string& root) const;
};

bool excluded(const std::vector<Exclude>& ex, const std::string& rel, const std::string& name);

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
