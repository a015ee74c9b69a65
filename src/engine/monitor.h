// The parent side of one run: the state start() prepares and the monitor loop wait() runs
// (relays the pty, drains captures, forwards signals, enforces the timeout, collects the result).
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/denylist_supervisor.h"
#include "engine/fallback_broker.h"
#include "engine/output_relay.h"
#include "engine/plan.h"
#include "engine/resources.h"
#include "gate/gate.h"
#include "net/egress.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::engine {

class Launch final : public Execution {
 public:
  ~Launch() override;

  pid_t pid() const override { return child_pid; }
  int take_stdin() override;
  Result<RunResult> wait() override;

  // --- used by start() ---
  Policy policy_copy;
  const Policy* policy = nullptr;
  RunOptions opts;
  std::chrono::steady_clock::time_point start_time;
  std::unique_ptr<ResourceControl> resources;
  std::unique_ptr<net::EgressFilter> egress;
  net::EgressOptions egress_options;
  std::string fallback_dir;
  std::vector<std::string> warnings;
  std::vector<IsolationGap> isolation_gaps;  // fallback_gaps() when running without namespaces
  // The fallback's metadata broker (fallback_broker.h), while the sandbox lives.
  std::unique_ptr<MetadataBroker> broker;
  // The session's denials (src/supervisor/), and the seccomp denylist's supervisor feeding them
  // while the sandbox lives (denylist_supervisor.h).
  std::unique_ptr<supervisor::DenialLog> denials = std::make_unique<supervisor::DenialLog>();
  std::unique_ptr<DenylistSupervisor> denylist;
  bool denylist_notify = false;
  // The session's record bound read-only inside (namespace mode): its private directory, removed
  // at the end, and paddock's descriptor to append to it.
  std::string denials_dir;
  sys::UniqueFd denials_fd;
  SeccompOptions seccomp_options;
  // What the run may leave behind for the host (src/gate/): taken before the sandbox starts.
  std::optional<gate::Check> watch;  // the gate at the end of the run (src/gate/gate.h)
  std::string exec_path;
  std::string hidden_command;  // found on the host's PATH but not visible inside
  std::string hidden_command_grant;  // the flags that would show it (command_grant_flags)
  std::string search_path;  // the sandbox's PATH (RunResult::search_path)
  std::string isolation;
  // The fresh HOME (FsPlan::scratch_home, scratch_setup): its tmpfs arrives on scratch_sock
  // (Plan::discard_sock) and is listed once the sandbox is gone (RunResult::discarded).
  std::string scratch_home;
  std::set<std::string> scratch_setup;
  sys::UniqueFd scratch_sock;
  bool namespaces = false;
  // The fallback init's sweep signal (fallback_init.h): sent instead of SIGKILL, so that the init
  // kills everything below it before it dies. 0 with namespaces (the pid namespace does it).
  int sweep_signal = 0;
  pid_t child_pid = -1;
  unsigned uid = 0, gid = 0;  // the invoking user's, read before any unshare
  bool sig_blocked = false;   // forwarded signals blocked since before clone
  sigset_t old_sigmask;
  sys::UniqueFd pidfd;
  sys::UniqueFd report;
  std::vector<ChildMessage> pending;

  // Sets plan.stdio / ctty_fd and keeps the parent ends.
  Result<void> setup_stdio_impl(Plan& plan);
  void close_child_side();
  void receive_pty();  // namespace mode: the pty master the init made in the sandbox
  bool read_message(ChildMessage& m);  // blocking; false on EOF
  void reap();                         // waits for the init process (after a failure)
  // Ends the run's processes: SIGKILL to the init, or with the fallback's init its sweep signal
  // first (and SIGKILL if it is still there after `grace`); then waits for the init.
  void kill_and_reap(std::chrono::milliseconds grace);
  // The init reported the end of the run (Usage + ExitStatus: every other sandboxed process
  // is dead): hand it to the deferred reaper instead of waiting out its namespace teardown.
  void detach_init();
  void reset_for_retry();

 private:
  std::vector<sys::UniqueFd> child_side_;
  sys::UniqueFd pty_master_;
  sys::UniqueFd pty_sock_;
  sys::UniqueFd out_r_, err_r_, in_w_;
  std::unique_ptr<OutputRelay> out_relay_, err_relay_;  // to paddock's stdout/stderr (wait())
  bool pty_mode_ = false;
  bool relay_outputs_ = false;  // inherit mode with count_output: pipes relayed to our 1 and 2
  bool waited_ = false;
  bool usage_reported_ = false;  // rusage_ came from the init's Usage message
  int wait_status_ = 0;
  struct rusage rusage_ {};
};

inline Result<void> setup_stdio(Launch& l, Plan& plan) { return l.setup_stdio_impl(plan); }

// Inits handed over by detach_init(): reaped without blocking by every start() (a process that
// exits leaves them to the kernel). Thread-safe.
void reap_detached();

// Receives up to `n` descriptors sent with SCM_RIGHTS (the egress listeners); `flags` for recvmsg
// (MSG_DONTWAIT: what was sent by now, or nothing).
std::vector<sys::UniqueFd> receive_fds(int sock, std::size_t n, int flags = 0);

Result<std::unique_ptr<Execution>> start_impl(const Policy& policy, const RunOptions& opts);
Result<void> exec_in_place_impl(const Policy& policy, const RunOptions& opts);

}  // namespace paddock::engine
