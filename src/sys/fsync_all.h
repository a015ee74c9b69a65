// Making many files durable at once. On this kind of disk each fsync ends in a cache flush of the
// device (about 4 ms here); fsyncs issued one after another pay it once each, while fsyncs that are
// in flight together share their journal commit and flush (issue 29: 10 objects and their
// directories, 85 ms one by one, 2-6 ms together). Each descriptor is still fsynced itself: the
// guarantee is exactly that of calling fsync on each, in any order.
#pragma once

#include <string>
#include <vector>

#include "paddock/result.h"

namespace paddock::sys {

// fsync of every descriptor in FDS, up to kFsyncThreads of them at a time (the calling thread
// does the only one when there is one). The first failure is returned, naming WHERE[i] of its
// descriptor (WHERE: one name per descriptor, or empty); every descriptor was fsynced or tried.
inline constexpr std::size_t kFsyncThreads = 16;
Result<void> fsync_all(const std::vector<int>& fds, const std::vector<std::string>& where = {});

}  // namespace paddock::sys
