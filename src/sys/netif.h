// Network interfaces in a fresh network namespace. Async-signal-safe.
#pragma once

namespace paddock::sys {

// Brings `lo` up in the calling process's network namespace. 0, or the errno of the failing step.
int loopback_up();

}  // namespace paddock::sys
