// The one loop that answers a seccomp user-notification listener, shared by the fallback's
// metadata broker (fallback_broker.h) and the seccomp denylist's supervisor
// (denylist_supervisor.h): receive, let the owner decide, send, until told to stop or no
// sandboxed process is left.
#pragma once

#include <linux/seccomp.h>

#include <functional>
#include <optional>

namespace paddock::engine {

// `answer` returns the errno to answer with (0: success, value 0), or nothing to send no answer
// (the caller is gone). `after` (optional) learns whether the answer reached a caller still
// waiting. Returns when `stop` (an eventfd) is readable or the listener hangs up.
void notify_loop(int listener, int stop, const seccomp_notif_sizes& sizes,
                 const std::function<std::optional<int>(const seccomp_notif&)>& answer,
                 const std::function<void(const seccomp_notif&, bool answered)>& after = {});

}  // namespace paddock::engine
