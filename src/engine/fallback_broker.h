// The fallback's second seccomp filter and its broker (issue 17, items 1 and 3). Without user
// namespaces there is no mount tree: every unix socket of the host is reachable by its path, and
// Landlock (through ABI 7) governs neither unix connect nor metadata changes, so `chmod` on a
// `--read` path would change the host's file.
//
// - Unix sockets: creating an AF_UNIX socket is refused (EACCES), and so is a datagram
//   socketpair (it could send to any datagram socket by path). Stream and seqpacket socketpairs
//   stay: they reach nothing but each other. Decided in BPF on register arguments, so nothing
//   the sandbox changes in its memory afterwards matters.
// - Metadata (chmod, chown, utimes, setxattr/removexattr families): every call is sent to paddock
//   through seccomp user notification. paddock opens the object itself (O_PATH, as the caller's
//   path and flags say, from the caller's cwd or descriptor), checks where that object really is
//   against the policy, and performs the change on that object, in a thread without
//   capabilities. The sandboxed call never continues: a path read from the sandbox's memory is
//   checked once and never looked up again.
#pragma once

#include <linux/filter.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

// Where metadata may change: the policy's writable rules and the fallback's private HOME and TMPDIR,
// minus its sensitive paths.
struct BrokerPolicy {
  std::vector<std::string> writable;
  std::vector<std::string> denied;
};
BrokerPolicy broker_policy(const Policy& policy, const std::vector<std::string>& private_dirs);

// Whether the object at REAL_PATH (absolute, as the kernel names an open file; "pipe:[1]" and
// the like for objects without a path) may have its metadata changed.
bool metadata_change_allowed(const BrokerPolicy& policy, std::string_view real_path);

// The filter. WITH_NOTIFY: the metadata calls go to a listener (installed with
// SECCOMP_FILTER_FLAG_NEW_LISTENER). Without (--exec: no paddock remains to answer) they pass
// unchecked, like the rest of what --exec gives up, and paddock says so before it execs.
std::vector<sock_filter> broker_filter(bool with_notify);

// Answers the listener's notifications on a thread of its own until destroyed.
class MetadataBroker {
 public:
  static Result<std::unique_ptr<MetadataBroker>> start(sys::UniqueFd listener, BrokerPolicy policy);
  ~MetadataBroker();
  MetadataBroker(const MetadataBroker&) = delete;
  MetadataBroker& operator=(const MetadataBroker&) = delete;

 private:
  struct Impl;
  explicit MetadataBroker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace paddock::engine
