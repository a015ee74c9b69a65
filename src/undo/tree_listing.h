// The listings of a whole directory tree read ahead, by several threads at once (issue 29: a
// snapshot's walk is one getdents and one lstat per entry, kernel work that two cores do in half
// the time). The tree is read as RealTreeFs reads it: each directory opened with O_NOFOLLOW
// relative to its parent's descriptor, never by path, so a symlink planted where a directory was
// is not followed (that directory is left out, and the walk that asks for it reads it itself and
// says why). The result is only a cache of listings: RealTreeFs::list answers from it once per
// directory, the same children with the same lstat as it would read itself.
#pragma once

#include <sys/stat.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "paddock/result.h"
#include "undo/tree_fs.h"

namespace paddock::undo {

using Listings = std::unordered_map<std::string, Result<std::vector<TreeChild>>>;

// The listings of ROOT_FD's tree, each sorted by name, keyed by path relative to the root ("" the
// root; tree_fs.h), down to MAX_DEPTH levels below the root (deeper ones are left to the walk, so
// that the descriptors held stay few: about MAX_DEPTH per thread), read by THREADS threads (the
// calling one among them). Once MAX_ENTRIES entries are listed no further directory is started
// (the rest is left to the walk: the listings held beside the walk's manifest stay bounded). A directory that cannot be opened is left out; one that cannot be
// read or whose entry cannot be lstat'ed holds the error RealTreeFs::list would give, naming
// ROOT_NAME/path.
Listings list_tree(int root_fd, const std::string& root_name, const ListingSkip& skip, int max_depth, unsigned threads,
                   std::size_t max_entries = static_cast<std::size_t>(-1));

// The threads a read-ahead uses here: the machine's cores, at most 4; 1 means none is worth it.
unsigned listing_threads();

// DIR's children (FD, read from its current offset) with their lstat, in the kernel's order: "."
// and ".." left out, a child gone since it was listed skipped. SHOWN names DIR in errors. The one
// reader of a directory for the walk (RealTreeFs::list) and its read-ahead.
Result<std::vector<TreeChild>> read_children(int fd, const std::string& shown);

// lstat's answer as a FileStat.
FileStat file_stat_from(const struct stat& st);

}  // namespace paddock::undo
