// Copying a file's content between descriptors the cheapest way the filesystem allows: a reflink
// (FICLONE: btrfs, XFS, bcachefs share the extents), else copy_file_range (the kernel copies,
// server-side on NFS), else read/write.
#pragma once

#include <cstdint>

#include "paddock/result.h"

namespace paddock::undo {

enum class CopyHow { Reflink, CopyRange, ReadWrite };

// Copies all of SRC (from offset 0) to DST (empty, opened for writing), returns how it was done.
Result<CopyHow> copy_file_content(int src, int dst);

}  // namespace paddock::undo
