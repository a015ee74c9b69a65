// Cleanup that need not delay a run's result (RunOptions::background_cleanup): once the init
// has reported that every other sandboxed process is gone, the result is ready, but the init
// is still exiting (its namespaces' teardown) and, until it is reaped, still in the run's
// cgroups, which cannot be removed before. One background thread reaps such inits and removes
// their cgroups; wait_background_cleanup() waits for it to catch up.
#pragma once

#include <sys/types.h>

#include <memory>

#include "engine/resources.h"

namespace paddock::engine {

// Takes over `init` (a child of this process, not yet reaped) and its resource control
// (collect() already called): reaps the init, then removes the cgroups. Warnings go to stderr.
void clean_up_in_background(pid_t init, std::unique_ptr<ResourceControl> resources);

// Blocks until every cleanup handed over so far is done. Thread-safe.
void wait_for_background_cleanup();

}  // namespace paddock::engine
