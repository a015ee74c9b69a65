// Running a command under a policy: run (stdio inherited), run_capture (stdio captured), and
// start/wait for callers that keep sandboxes warm (the MCP server).
//
// Parent plans, child applies: paths, argv, envp, the mount/Landlock/seccomp plan are all built
// before clone; between clone and exec the child only makes async-signal-safe calls and reports
// a setup failure through a close-on-exec pipe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "paddock/features.h"
#include "paddock/denial.h"
#include "paddock/network_decision.h"
#include "paddock/policy.h"
#include "paddock/result.h"

namespace paddock {

// Thread-safe cancellation of a running sandbox (kills the whole tree).
class CancelToken {
 public:
  CancelToken();
  ~CancelToken();
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;
  void cancel();
  bool cancelled() const;
  int fd() const { return fd_; }  // an eventfd that becomes readable on cancel

 private:
  int fd_ = -1;
};

// A mount at a path of its own inside the sandbox (not the host path): the MCP server's fresh
// /workspace and read-only /project. Needs namespaces.
struct SandboxMount {
  std::string sandbox_path;  // absolute
  std::string host_path;     // empty: a fresh tmpfs
  Access access = Access::ReadWrite;
  std::uint64_t tmpfs_size_bytes = 0;  // 0: half of RAM (tmpfs default)
  // Both set: an overlay at sandbox_path with host_path as its read-only lower layer and writes
  // going to overlay_upper (overlay_work is overlayfs's scratch directory, on the same
  // filesystem). Mounted inside the sandbox's user namespace, so with `userxattr` (Linux 5.11+):
  // renaming a directory that came from the lower layer fails with EXDEV (docs/jails.md).
  std::string overlay_upper, overlay_work;
  // Left out where user namespaces are unavailable (the Landlock fallback has no mounts), where
  // the caller has said what that costs, instead of refusing the run: a repository's private
  // object directory (src/jail/private_objects.h).
  bool needs_namespaces = false;
};

struct RunOptions {
  std::vector<std::string> argv;          // argv[0] is looked up in PATH (the sandbox's PATH)
  std::optional<std::vector<std::string>> host_env;  // default: this process's environment

  enum class Stdio { Inherit, Capture };
  Stdio stdio = Stdio::Inherit;
  // Capture mode: at most this many bytes kept per stream; the rest is drained and counted.
  std::size_t capture_limit = 16u << 20;
  // Capture mode: bytes written to the child's stdin, then closed. Without it stdin is /dev/null.
  std::optional<std::string> stdin_data;
  // Capture mode: keep stdin as a pipe the caller writes to (Execution::take_stdin()).
  bool stdin_pipe = false;

  // Inherit mode: give the child its own pseudo-terminal when stdin is a terminal, and relay.
  bool pty = true;
  // Inherit mode: forward SIGINT, SIGTERM, SIGHUP, SIGQUIT (and SIGWINCH to the pty).
  bool forward_signals = true;
  // Inherit mode: count the bytes the command writes (RunResult::stdout_bytes/stderr_bytes) by
  // relaying stdout/stderr through pipes (a stream on the pty is counted anyway).
  bool count_output = false;
  // Extra descriptors kept open in the child under the same numbers (all others are closed).
  std::vector<int> pass_fds;
  // Write the effective policy to a file inside the sandbox and name it in PADDOCK_POLICY.
  bool expose_policy = true;
  // Namespace mode: a host unix socket bound (read-only) at "checkpoint" beside the policy file
  // (/.paddock/checkpoint): `paddock run --undo`'s checkpoint channel (undo/checkpoint.h).
  std::string checkpoint_socket;
  std::shared_ptr<CancelToken> cancel;
  // Test-only name map for the egress filter (NetMode::Filtered): NAME -> ADDR instead of the
  // host resolver (`--resolve NAME:ADDR`). docs/network.md.
  std::vector<std::pair<std::string, std::string>> test_resolve;
  // Extra mounts at paths of their own, applied after the policy's (so they win at their path).
  std::vector<SandboxMount> mounts;
  // Start in this directory instead of policy.cwd (e.g. "/workspace").
  std::optional<std::string> cwd;
  // Return the result as soon as every sandboxed process is gone, and remove the run's cgroups
  // in the background once the sandbox's init has exited (its namespace teardown takes a
  // fraction of a millisecond or more). For long-lived callers that run many sandboxes (the MCP
  // server); call wait_background_cleanup() before exiting. Without it, wait() returns only
  // after the cgroups are gone.
  bool background_cleanup = false;
  // paddock's own state directory ($XDG_STATE_HOME/paddock: include/paddock/state.h), where
  // the check after the run keeps what it listed of large writable trees, so that the next run's
  // check reads only the directories that changed (src/gate/dir_index.h). Used only when neither
  // the policy nor the mounts let the sandbox write there. Empty: every run's check reads every
  // directory.
  std::string state_dir;
  // Filtered network: called for each decision of the egress filter as it happens (count 1),
  // from the filter's threads, one call at a time. The connection waits for it: keep it short.
  std::function<void(const NetworkDecision&)> on_network_decision;
  // Called with a denial's aggregated line when it is first met and each time its count reaches a
  // power of two (supervisor/denial_log.h), from paddock's own threads, serialised. Its strings
  // may carry what the sandbox chose: escape them before printing.
  std::function<void(const Denial&)> on_denial;
};

// How one requested limit was enforced (for the report and the footer).
struct LimitReport {
  std::string name;       // "memory", "pids", "cpu", "timeout", ...
  std::string requested;  // "2G"
  std::string enforced_by;  // "cgroup v2", "cgroup v1", "rlimit RLIMIT_AS", "tmpfs size", "not enforced"
  bool weaker = false;      // enforced less strictly than asked (e.g. rlimit instead of cgroup)
  bool hit = false;         // the run reached it
};

// Something a run left where the host runs or trusts it later (issue 12): a git repository's
// control files, an agent's host-executed settings, a protected path created. Found by the checks
// after the run (src/gate/); docs/isolation.md lists what is checked.
struct LeftBehind {
  std::string path;    // the exact host path
  std::string what;    // why it matters: what on the host reads or runs it
  std::string action;  // what paddock did: "left in place: review it", "reverted; ..."
};

// What the command wrote outside every host-backed path — in the fresh HOME's own tmpfs, which
// the sandbox takes with it — listed after the run (docs/report.md). Not recorded when HOME is a
// rule's or a jail's, nor without namespaces (the fallback's private HOME under /tmp/paddock-* is
// removed after the run, not yet listed).
struct DiscardedWrites {
  bool recorded = false;        // there was a fresh HOME and it could be listed
  bool complete = true;         // false: a limit or an unreadable directory cut the listing (counts are lower bounds)
  std::uint64_t entries = 0;    // everything the command created there: files, links, directories
  std::uint64_t bytes = 0;      // the sizes of the regular files among them
  std::uint64_t tops = 0;       // topmost new entries (a new directory is one, whatever it holds)
  std::vector<std::string> paths;  // the first few of those, sorted, as the sandbox saw them; directories end in '/'
};

struct RunResult {
  enum class Status {
    Exited,       // the command exited with exit_code
    Signaled,     // the command died of signal `signal`
    SetupFailed,  // the sandbox could not be built: setup_step / setup_errno
    NotFound,     // exec failed: no such command (shell code 127)
    NotExecutable,  // exec failed: not executable (shell code 126)
  };
  Status status = Status::Exited;
  int exit_code = 0;
  int signal = 0;
  std::string setup_step;  // "mount proc", "landlock restrict", ...
  int setup_errno = 0;
  std::string setup_detail;  // the path or value involved

  std::string isolation;              // "namespaces+landlock(6)+seccomp", "landlock(6)+seccomp"
  std::vector<std::string> warnings;  // degraded isolation, ...
  std::vector<IsolationGap> isolation_gaps;  // what the fallback lacks (empty with namespaces)
  std::vector<LeftBehind> left_behind;  // what the host would run or trust later (see LeftBehind)
  DiscardedWrites discarded;            // written outside every host-backed path, gone with the sandbox
  // What that check read of the writable trees: directories listed, and directories found
  // unchanged since an earlier run listed them (RunOptions::state_dir), not read again.
  std::uint64_t check_dirs_listed = 0;
  std::uint64_t check_dirs_unchanged = 0;
  std::string search_path;  // the PATH the sandbox's command was looked up in (and ran with)
  std::vector<std::string> denied_hosts;  // network: "host:port" the egress filter refused
  std::vector<NetworkDecision> network;   // network: every decision of the egress filter
  // What the sandbox was refused, exactly, aggregated (paddock/denial.h, docs/supervisor.md): the
  // seccomp denylist's refusals by name (with namespaces, without --exec) and the egress filter's.
  std::vector<Denial> denials;
  bool timed_out = false;
  bool oom = false;       // killed by the memory limit
  bool cancelled = false;
  std::vector<LimitReport> limits;

  std::chrono::nanoseconds wall{0};
  double user_cpu_s = 0;
  double sys_cpu_s = 0;
  std::uint64_t peak_memory_bytes = 0;
  std::uint64_t processes_started = 0;
  std::uint64_t stdout_bytes = 0;  // written by the child (captured or relayed)
  std::uint64_t stderr_bytes = 0;
  std::string stdout_data;  // capture mode
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;

  // The code a shell would report: exit code, 128+N for signal N, 126/127 for exec failures,
  // 125 for a setup failure.
  int shell_code() const;
  // "sandbox setup failed: <step>: <reason>" or "<cmd>: command not found", or "".
  std::string failure_message() const;
};

class Execution {
 public:
  virtual ~Execution() = default;
  virtual pid_t pid() const = 0;
  // Capture mode with stdin_pipe: the write end of the child's stdin (caller closes it).
  virtual int take_stdin() = 0;
  // Runs the monitor loop until the sandboxed tree is gone (relays, captures, limits).
  virtual Result<RunResult> wait() = 0;
};

// Starts the sandbox and returns at once (the command is running, or setup failed and wait()
// says so).
Result<std::unique_ptr<Execution>> start(const Policy& policy, const RunOptions& options);

// Waits until the cleanups of runs with RunOptions::background_cleanup are done (their cgroups
// removed; a warning on stderr for any that could not be). Thread-safe.
void wait_background_cleanup();

// start() + wait().
Result<RunResult> run(const Policy& policy, const RunOptions& options);
// run() with stdio captured.
Result<RunResult> run_capture(const Policy& policy, RunOptions options);

// Replaces the calling process with the command inside the sandbox (`paddock run --exec`):
// no monitor, no footer, no pty relay. There is no pid namespace (the command keeps this
// process's pid), so the host's /proc is shown read-only; Landlock still stops ptrace and, at
// ABI 6, signals to processes outside. Returns only on failure. Single-threaded callers only.
Result<void> exec_in_place(const Policy& policy, const RunOptions& options);

// The policy as JSON (the PADDOCK_POLICY file, `why --self`, the run report). Version
// "paddock.policy/1"; documented in docs/policy-json.md.
nlohmann::json policy_to_json(const Policy& policy);
Result<Policy> policy_from_json(const nlohmann::json& j);

// The environment the sandbox gets from `host_env` under `policy` (documented safe set + passes
// + sets, HOME/USER/PWD fixed up). Sorted "NAME=VALUE" strings.
std::vector<std::string> sandbox_environment(const Policy& policy,
                                             const std::vector<std::string>& host_env);
// The documented safe set (names; "LC_*" style prefixes allowed).
const std::vector<std::string>& safe_env_names();

}  // namespace paddock
