// The plan: everything the child needs, computed in the parent before clone. The child only
// reads it (no allocation) and applies it with async-signal-safe calls (child.cc).
#pragma once

#include <linux/filter.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <termios.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/resources.h"
#include "net/egress.h"

namespace paddock::engine {

// Paths under which the child builds the new root and sees the old one.
inline constexpr const char* kNewRoot = "/newroot";
inline constexpr const char* kOldRoot = "/oldroot";

struct MountOp {
  enum class Kind {
    Bind,       // bind src (host path, under /oldroot) onto dst, read-only or not
    Tmpfs,      // fresh tmpfs at dst with `data` options
    MaskDir,    // empty tmpfs, mode 000, read-only at the end: hides a sensitive directory
    MaskFile,   // an empty mode-000 file bound read-only over a sensitive file
    Protect,    // re-bind dst onto itself read-only (files the host executes later)
    Symlink,    // symlink dst -> src
    Proc,       // a fresh procfs for the sandbox's pid namespace
    Devpts,     // a fresh devpts instance (ptmxmode=0666)
    DevNode,    // bind a host device node (src) onto a new empty file at dst
    WriteFile,  // create dst with `data` as its contents (read-only root, written before remount)
    Overlay,    // overlayfs at dst with `data` as its options (lowerdir, upperdir, workdir under /oldroot)
  };
  Kind kind = Kind::Bind;
  std::string src;
  std::string dst;      // absolute, under kNewRoot
  std::string label;    // the path as the sandbox sees it, for messages
  std::string data;     // tmpfs options, or file contents
  bool readonly = true;
  bool is_dir = true;   // what the mount point must be
  bool check_inode = false;  // verify the mounted object is the one the parent resolved
  dev_t dev = 0;
  ino_t ino = 0;
  unsigned long extra_flags = 0;  // MS_NOSUID | MS_NODEV | MS_NOEXEC for the final remount
};

struct LandlockRule {
  std::string path;     // as seen by the child when rules are added (after pivot_root)
  std::uint64_t access = 0;
  bool optional = false;  // skip if absent
};

struct LandlockPlan {
  int abi = 0;                      // 0: not applied
  std::uint64_t handled_fs = 0;
  std::uint64_t handled_net = 0;
  std::uint64_t scoped = 0;
  std::vector<LandlockRule> rules;
};

// Messages the child writes to the report pipe (fixed size, written with one write()).
// A namespace init ends a run with Usage then ExitStatus, and sends them only after it has
// killed and reaped every other process of the sandbox: from then on nothing sandboxed is
// alive and the parent need not wait for the init's own exit (its namespace teardown).
// The detail of an ExitStatus message whose init has left the run's cgroups (leave_fds()).
inline constexpr const char* kLeftCgroups = "left-cgroups";

struct ChildMessage {
  // Usage: detail is "<user cpu µs> <system cpu µs> <peak RSS KiB>" of the whole tree.
  enum Type : std::uint32_t { SetupError = 1, ExecError = 2, ExitStatus = 3, Started = 4, Usage = 5 };
  std::uint32_t type = 0;
  std::int32_t err = 0;
  std::int32_t value = 0;  // wait status for ExitStatus, pid for Started
  char step[48] = {};
  char detail[200] = {};
};

struct Plan {
  bool namespaces = false;
  std::uint64_t clone_flags = 0;   // CLONE_NEW* for clone3
  bool new_cgroup_ns = false;      // unshare(CLONE_NEWCGROUP) after joining the cgroups
  bool loopback_up = false;        // bring `lo` up in the new network namespace
  std::string uid_map, gid_map;    // "1000 1000 1\n"
  std::string hostname;
  std::vector<MountOp> mounts;
  std::vector<std::string> remount_ro_at_end;  // tmpfs mounts to seal read-only (dst paths)
  // The fresh HOME's tmpfs (dst path, under kNewRoot): with discard_sock >= 0, a detached clone of
  // that one mount (open_tree, no submounts) goes to paddock, which lists after the run what was
  // written there and is discarded with it (discarded_writes.h). Nothing is sent when the clone
  // cannot be made; the run goes on.
  std::string discard_root;
  int discard_sock = -1;
  std::string cwd;
  LandlockPlan landlock;
  std::vector<sock_filter> seccomp;  // BPF program (empty: none)
  // With denylist_fd >= 0, `seccomp` is the denylist's notify variant (SeccompOptions::notify):
  // it is loaded with a listener, which is sent to paddock on denylist_fd (denylist_supervisor.h).
  int denylist_fd = -1;
  // The fallback's second filter (fallback_broker.h), stacked on `seccomp`; with broker_fd >= 0
  // it is loaded with a listener, which is sent to paddock on broker_fd.
  std::vector<sock_filter> broker_seccomp;
  int broker_fd = -1;
  bool fallback_subreaper = false;   // no pid namespace: the init sweeps orphans itself
  // The fallback init (fallback_init.h): paddock's pid, to notice it died before the init set its
  // parent-death signal, and the signal that makes the init kill everything below it and die.
  pid_t parent_pid = 0;
  int sweep_signal = 0;
  bool exec_in_place = false;        // --exec: no init, no fork; setup errors go to stderr

  // exec
  std::string exec_path;              // resolved before clone; empty if not found on the host
  std::vector<std::string> argv_storage, envp_storage;
  std::vector<char*> argv, envp;      // null-terminated views into the storage

  // stdio in the command process: fds (in the child) to dup onto 0, 1, 2; -1 keeps the fd
  int stdio[3] = {-1, -1, -1};
  int ctty_fd = -1;                   // pty slave to make the controlling terminal
  // Namespace mode with a terminal: the init opens the pty in the sandbox's own devpts (so
  // ttyname() works inside), sends the master on pty_sock, and the command gets the slave on
  // the fds marked in pty_stdio, with these settings.
  int pty_sock = -1;
  bool pty_stdio[3] = {false, false, false};
  struct termios pty_termios {};
  bool pty_have_termios = false;
  struct winsize pty_winsize {};
  std::vector<int> keep_fds;          // pass_fds: kept open under the same numbers
  int report_fd = -1;                 // write end of the report pipe (close-on-exec)

  // resource control
  // The child writes "0" into each first thing: the v1 "tasks" files (all of the run's cgroups
  // with --exec).
  std::vector<int> cgroup_attach_fds;
  // Or the parent attaches the child while it builds its mounts (a cgroup migration can wait
  // out an RCU grace period); the child reads one byte here before it may unshare its cgroup
  // namespace or start the command. EOF means the attach failed.
  int attach_wait_fd = -1;
  std::vector<RlimitSpec> rlimits;
  // Namespace mode: once every other sandboxed process is gone, the init writes "0" into each
  // (ResourceControl::leave_fds(), sorted) and says "left" in its ExitStatus message.
  std::vector<int> cgroup_leave_fds;
  // Non-empty: pid 1 writes it into its pid namespace's /proc/sys/kernel/pid_max first thing
  // (the built-in process ceiling, ResourceControl::pid_max()).
  std::string pid_max;

  // network (NetMode::Filtered): listeners created inside the namespace and sent on net_fd
  std::vector<net::ListenSpec> listeners;
  int net_fd = -1;

  void finalize_exec_arrays();  // fills argv/envp from storage
};

}  // namespace paddock::engine
