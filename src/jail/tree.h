// Walking, copying and removing trees a sandbox may have written, without following a symlink
// at any step: every object is reached through its parent's descriptor (openat with O_NOFOLLOW).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "paddock/jail.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {

// What is remembered of one entry of a tree.
struct EntryStat {
  char type = 0;  // 'f' file, 'd' directory, 'l' symlink, 0 absent or other
  std::uint32_t mode = 0;  // permission bits
  std::uint64_t size = 0, ino = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const EntryStat&) const = default;
};
EntryStat entry_stat(const struct stat& st);

// Copy mode's record of the copy: each entry's stat in the source and in the workspace, as they
// were right after the copy (or the last sync). Kept in runtime/manifest.
struct ManifestEntry {
  std::string path;  // relative
  EntryStat source, workspace;
};
Result<void> write_manifest(int runtime_dirfd, const std::vector<ManifestEntry>& m);
Result<std::vector<ManifestEntry>> read_manifest(int runtime_dirfd, const std::string& where);

// copy_tree, and the manifest of what was copied.
Result<CopyStats> copy_tree_manifest(const std::string& src, const std::string& dst,
                                     std::vector<ManifestEntry>* manifest, const CopyProgress& progress = {});

// Calls VISIT for every entry under DIRFD (depth first, parents first), with its relative path
// and lstat; does not descend into symlinks or other filesystems. Directories named `skip` at
// the top level (".git") are left out.
Result<void> walk(int dirfd, const std::string& where,
                  const std::function<void(const std::string&, const struct stat&)>& visit,
                  const std::string& skip_top = {});

// Opens REL beneath DIRFD with no symlink at any component (the final one too unless
// O_PATH|O_NOFOLLOW is in flags): sys::open_beneath, with its fallback for kernels without openat2.
using sys::open_beneath;

// Removes NAME in DIRFD and everything below it, never following a symlink.
// The entries of an open directory (names only, without . and ..), sorted; WHERE names it in errors.
Result<std::vector<std::string>> list_dir(int dirfd, const std::string& where);

Result<void> remove_tree_at(int dirfd, const std::string& name, const std::string& where);

}  // namespace paddock::jail
