// Writing to a pipe whose reader may have left, in a library whose caller must not die of it:
// paddock's own binary blocks or ignores SIGPIPE, but a program using libpaddock (the C API, a
// Python script) keeps the default action, which would kill it when a sandboxed command exits
// without reading its stdin.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace paddock::sys {

// write(2) with SIGPIPE blocked in this thread for the call: a reader that left gives EPIPE, and
// the SIGPIPE the write raised is taken back (one that was pending before is left alone). The
// thread's signal mask is as it was afterwards. errno as write(2) set it.
ssize_t write_without_sigpipe(int fd, const void* buf, std::size_t len);

}  // namespace paddock::sys
