// Directories paddock writes into after (or during) a run, opened before it with no symlink
// followed at any step (issue 12, class 6). The sandbox may be able to write to the place where
// `--report DIR/run.json` or `--net-log DIR/x.jsonl` lives; if paddock resolved DIR by name when
// the run ends, a DIR swapped for a symlink during the run would send the write anywhere paddock
// can write. So DIR is opened once, before the run, and every later file operation is relative to
// that descriptor.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include <string>
#include <string_view>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::sys {

// Opens the directory PATH (absolute or relative to the cwd) without following a symlink at any
// component: openat2(RESOLVE_NO_SYMLINKS), or, where the kernel has no openat2, one
// openat(O_NOFOLLOW|O_DIRECTORY) per component. A symlink on the way is an error that says so.
Result<UniqueFd> open_dir_no_symlinks(const std::string& path);

// The openat2 a resolution calls: sys::openat2, or a test's stand-in (anchored_dir_test.cc passes
// one that fails with ENOSYS to run the fallback on a kernel that has openat2).
using Openat2Fn = long (*)(int dirfd, const char* path, const void* how, std::size_t how_size);

// Opens REL (relative, below DIRFD) with FLAGS | O_CLOEXEC, following no symlink, no magic link,
// no ".." out of DIRFD and no mount point: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV). A trailing symlink opens only with O_PATH | O_NOFOLLOW
// (the link itself). Where the kernel has no openat2 (ENOSYS; or E2BIG, EPERM from a filter), one
// openat(O_NOFOLLOW) per component: ".." and absolute paths are refused (EXDEV), a symlink on the
// way fails with ELOOP, a component on another file system with EXDEV (a bind mount of the same
// file system is not seen there: the kernel that lacks openat2 has no mount id to compare).
Result<UniqueFd> open_beneath(int dirfd, const std::string& rel, int flags, Openat2Fn openat2_fn = nullptr);

// Splits PATH into its directory ("." when none) and its last component; an empty last component
// (a path ending in '/', ".", "..") is an error.
Result<std::pair<std::string, std::string>> split_file_path(const std::string& path);

// Writes CONTENT to NAME inside DIRFD: a temp file beside it, fsync, renameat over NAME, fsync of
// the directory. Nothing is followed: the temp is created O_EXCL|O_NOFOLLOW, NAME is replaced
// (a symlink planted at NAME is replaced, never written through).
Result<void> write_file_at(int dirfd, const std::string& name, std::string_view content, mode_t mode);

}  // namespace paddock::sys
