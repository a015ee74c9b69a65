// The checkpoint channel (issue 14): how a command inside the sandbox asks the unsandboxed
// `paddock run --undo` parent for a snapshot ("before refactor", one per agent turn).
//
// The sandbox can only *ask*, on one of two doors to the same server, both SOCK_SEQPACKET:
// - a listening socket bound (read-only) at /.paddock/checkpoint inside the sandbox (namespace
//   mode; /dev/.paddock/checkpoint when "/" is bound from the host): found by path, so it works
//   from any process, whatever its parents did with descriptors or the environment (Node-based
//   agents start hooks with neither). A connection carries one request and gets one reply.
// - an inherited socketpair end, its number in PADDOCK_CHECKPOINT_FD (both modes; the only door
//   without namespaces, where the fallback refuses creating unix sockets): the request carries,
//   with SCM_RIGHTS, one end of the asker's own socketpair for the reply, so concurrent askers never
//   read each other's answers.
// A request is one datagram:
//
//   "paddock-checkpoint 1\n" LABEL        (LABEL: at most 200 bytes of UTF-8, no control characters)
//
// and the reply one line, "ok ..." or "error ...". The parent reads nothing else from the sandbox:
// no path, no session, no store name. It takes the snapshot itself, of the scope it fixed before
// the sandbox existed, into a store the sandbox cannot see (paddock/state.h). A malformed
// request, a descriptor that is not an unnamed socket, or a request past the session's limit is
// answered (when it can be) and otherwise dropped; the parent never blocks on what the sandbox
// sends it for longer than kCheckpointRequestWait.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::undo {

inline constexpr const char* kCheckpointFdEnv = "PADDOCK_CHECKPOINT_FD";
inline constexpr std::string_view kCheckpointMagic = "paddock-checkpoint 1\n";
inline constexpr std::size_t kMaxCheckpointLabel = 200;
// Checkpoints one run may ask for: each one is a snapshot in the store.
inline constexpr int kMaxCheckpointsPerRun = 500;
// How long the server waits for a connection's request before dropping it.
inline constexpr int kCheckpointRequestWaitMs = 2000;
// The socket's name beside the policy file inside the sandbox.
inline constexpr const char* kCheckpointSocketName = "checkpoint";

// Why LABEL cannot be a checkpoint's label ("" when it can): UTF-8, no control characters (C0,
// DEL, C1), at most kMaxCheckpointLabel bytes. A label ends up in `paddock undo list` on the
// user's terminal.
std::string checkpoint_label_problem(std::string_view label);

// The request's label, or why the datagram is not a request.
Result<std::string> parse_checkpoint_request(std::string_view datagram);
std::string checkpoint_request(std::string_view label);

// The asking side (`paddock checkpoint`): sends the request on FD (the inherited end) and waits
// for the reply line. An error when FD is not the channel or paddock answered "error ...".
Result<std::string> ask_for_checkpoint(int fd, std::string_view label);
// The same through the listening socket at PATH.
Result<std::string> ask_for_checkpoint_at(const std::string& path, std::string_view label);

// The parent's side: answers requests on its end of the channel on a thread of its own until
// stopped. HANDLER takes the label and returns the reply ("ok ..." / "error ..."); it is called
// on the server's thread, one request at a time.
class CheckpointServer {
 public:
  using Handler = std::function<std::string(const std::string& label)>;
  // The channel: the parent's end is kept here, the sandbox's end is returned by sandbox_end()
  // (close-on-exec; pass its number in RunOptions::pass_fds and PADDOCK_CHECKPOINT_FD).
  // WITH_SOCKET: also a listening socket, in a fresh 0700 directory under /tmp (socket_path();
  // RunOptions::checkpoint_socket binds it into the sandbox), removed by the destructor.
  static Result<std::unique_ptr<CheckpointServer>> start(Handler handler, int max_requests = kMaxCheckpointsPerRun,
                                                         bool with_socket = false);
  ~CheckpointServer();  // stop()
  CheckpointServer(const CheckpointServer&) = delete;
  CheckpointServer& operator=(const CheckpointServer&) = delete;

  int sandbox_end() const;
  const std::string& socket_path() const;  // "" without one
  // Closes the sandbox's end here (after the sandbox has started, or is gone).
  void close_sandbox_end();
  // Waits for the request being answered, if any, and ends the thread. Requests still queued are
  // left unanswered (their askers see the channel close).
  void stop();
  int answered() const;  // requests that got "ok"

 private:
  struct Impl;
  explicit CheckpointServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace paddock::undo
