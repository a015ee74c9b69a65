// The filesystem the undo engine reads and restores, behind an interface (ninja's DiskInterface):
// RealTreeFs works on a real directory through directory descriptors, FakeTreeFs (fake_tree_fs.h)
// is an in-memory tree for unit tests.
//
// Paths are relative to the tree's root, '/'-separated, never "." or ".." components; "" is the
// root itself. Nothing is followed: every component of a path is opened with O_NOFOLLOW, so a
// symlink the sandbox planted where a directory was cannot send a read or a restore elsewhere
// (the operation fails, and the restore's diff replaces the link first).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::undo {

enum class EntryType : char { File = 'f', Dir = 'd', Symlink = 'l', Fifo = 'p', Other = 'o' };

struct FileStat {
  EntryType type = EntryType::Other;
  mode_t mode = 0;  // permission bits (07777)
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t ino = 0;
  std::uint64_t dev = 0;
  unsigned uid = 0;
  unsigned gid = 0;
};

struct TreeChild {
  std::string name;
  FileStat st;
};

// SKIP(path, name): a directory a walk does not descend into (an excluded one).
using ListingSkip = std::function<bool(const std::string& path, const std::string& name)>;

class TreeFs {
 public:
  virtual ~TreeFs() = default;

  // The entries of directory DIR with their lstat, in no particular order.
  virtual Result<std::vector<TreeChild>> list(const std::string& dir) = 0;
  // A hint before a walk of the whole tree (scan.h): the listings of its directories, but those
  // SKIP names, may be read ahead, several at once, and list() then answers from them, once per
  // directory (RealTreeFs: tree_listing.h). end_read_ahead() drops what the walk did not ask for.
  // By default nothing is read ahead.
  virtual void read_ahead(const ListingSkip& skip) { (void)skip; }
  virtual void end_read_ahead() {}
  // lstat of PATH; errno ENOENT in the error when it is missing.
  virtual Result<FileStat> stat(const std::string& path) = 0;
  // A regular file opened for reading (O_NOFOLLOW: a symlink or anything else is an error).
  virtual Result<sys::UniqueFd> open_file(const std::string& path) = 0;
  virtual Result<std::string> read_link(const std::string& path) = 0;

  // Changes (restore). Files and links are made beside their name and renamed over it, so a
  // name is never seen half-written.
  // A directory with META's mode (and, as root, owner).
  virtual Result<void> make_dir(const std::string& path, const FileStat& meta) = 0;
  // A regular file with the content read from CONTENT_FD (from its offset 0), its mode, mtime
  // and (when the caller may) owner.
  virtual Result<void> write_file(const std::string& path, int content_fd, const FileStat& meta) = 0;
  virtual Result<void> make_symlink(const std::string& path, const std::string& target) = 0;
  // (No FIFO, device or socket is ever made: restore_gate.h.)
  // unlink, or rmdir for an (empty) directory.
  virtual Result<void> remove(const std::string& path) = 0;
  virtual Result<void> set_mode(const std::string& path, mode_t mode) = 0;
  // Makes the changes so far durable.
  virtual Result<void> sync() = 0;

  // The clock the filesystem stamps ctime with, and its granularity: an entry whose ctime lies
  // within one tick of a scan's start may change again without its ctime moving.
  virtual std::int64_t now_ns() = 0;
  virtual std::int64_t timestamp_granularity_ns() = 0;
};

// A real directory tree. ROOT must be an absolute path to a directory reached without symlinks.
Result<std::unique_ptr<TreeFs>> open_real_tree(const std::string& root);

// "a/b" + "c" -> "a/b/c"; "" + "c" -> "c".
std::string join_rel(const std::string& dir, const std::string& name);
// "a/b/c" -> "a/b"; "c" -> "".
std::string parent_rel(const std::string& path);
// Orders paths so that a directory comes right before everything in it ("a", "a/b", "a.b").
bool path_less(const std::string& a, const std::string& b);
// True when PATH is ROOT or below it ("" is above everything).
bool rel_at_or_under(const std::string& path, const std::string& root);

}  // namespace paddock::undo
