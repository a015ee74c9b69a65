// `paddock run --undo`: a snapshot of the run's writable paths before the sandbox starts and one
// after it is gone (docs/undo.md). A snapshot that fails never stops the run: the footer says
// undo is incomplete and why.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "paddock/policy.h"
#include "paddock/sandbox.h"

namespace paddock::cli {

// A checkpoint stores only what changed since the snapshot before it, and an agent's turn changes
// KiBs to MiBs: 1 GiB is hundreds of heavy turns, and bounds what asking from inside can add.
inline constexpr std::uint64_t kDefaultUndoBudget = std::uint64_t{1} << 30;
// `paddock undo prune` without --max-size, and the size past which a run says to prune.
inline constexpr std::uint64_t kDefaultStoreQuota = std::uint64_t{10} << 30;

struct UndoRunFlags {
  bool enabled = false;
  std::vector<std::string> excludes;  // --undo-exclude NAME or relative PATH, a profile's [undo] excludes
  bool default_excludes = true;       // node_modules, target, .venv
  int max_checkpoints = 500;          // [undo] max_checkpoints (undo::kMaxCheckpointsPerRun)
  // [undo] max_bytes, --undo-max-bytes: what the checkpoints asked for from inside may add to the
  // store, together. The snapshot before the run (the host's tree) and the one after it (what the
  // run left, which a restore needs) are always taken.
  std::uint64_t max_bytes = kDefaultUndoBudget;
  // [undo] store_quota: the store's size past which the run's last lines say to prune.
  std::uint64_t store_quota = kDefaultStoreQuota;
};

class UndoRun;
struct UndoRunDeleter {
  void operator()(UndoRun* u) const;
};
using UndoRunPtr = std::unique_ptr<UndoRun, UndoRunDeleter>;

// The first snapshot. Never null when enabled: a failure is kept for the footer.
UndoRunPtr undo_before(const UndoRunFlags& f, const Policy& policy, const HostContext& ctx,
                       const std::vector<std::string>& command);
// The checkpoint channel (undo/checkpoint.h): a command inside may ask for a snapshot with
// `paddock checkpoint LABEL`. Adds the socket bound at /.paddock/checkpoint (namespace mode) to
// OPTS, the inherited end to OPTS.pass_fds and PADDOCK_CHECKPOINT_FD to POLICY's environment, and
// answers on a thread until undo_after(). Nothing when the first snapshot failed (there is no
// session to add to).
void undo_open_checkpoints(UndoRun& u, const UndoRunFlags& f, Policy& policy, RunOptions& opts);
// The last snapshot; the [paddock] lines to print (session, how to restore, or what failed).
std::vector<std::string> undo_after(UndoRun& u);

}  // namespace paddock::cli
