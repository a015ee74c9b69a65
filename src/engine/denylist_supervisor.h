// The seccomp denylist's refusals by name and count (issue 28 part 1): with SeccompOptions::notify
// the denylist's entries return SECCOMP_RET_USER_NOTIF, and this supervisor, on a thread of its
// own in the unsandboxed parent, answers every notification with the matched entry's errno and
// records it in the session's DenialLog.
//
// The decision stays in BPF: the kernel sends a notification only for a call the denylist
// refuses, and the answer is always that refusal (never success; EPERM when, against the list,
// no entry matches). The entry is found from the call's registers (seccomp_data, the kernel's
// copy): nothing is read from the sandbox's memory. The caller's comm (/proc/PID/comm) is a name
// the sandbox chose, recorded raw and escaped wherever printed. Stopping closes the listener: a
// call still pending, or made later by a process that outlived the run, fails with ENOSYS.
#pragma once

#include <memory>

#include "engine/seccomp_policy.h"
#include "paddock/result.h"
#include "supervisor/denial_log.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

class DenylistSupervisor {
 public:
  // `log` outlives the supervisor.
  static Result<std::unique_ptr<DenylistSupervisor>> start(sys::UniqueFd listener, SeccompOptions opts,
                                                           supervisor::DenialLog* log);
  ~DenylistSupervisor();  // stops answering and closes the listener
  DenylistSupervisor(const DenylistSupervisor&) = delete;
  DenylistSupervisor& operator=(const DenylistSupervisor&) = delete;

 private:
  struct Impl;
  explicit DenylistSupervisor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The denial a notified call (number and register arguments) is recorded as, and the errno it
// is answered with (positive). Pure: unit-tested without a kernel.
struct DenylistAnswer {
  int error = EPERM;
  Denial denial;
};
DenylistAnswer denylist_answer(const SeccompOptions& opts, int nr, const std::uint64_t (&args)[6]);

}  // namespace paddock::engine
