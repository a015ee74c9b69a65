// The seccomp rule list, with why each entry is there. Data only: the BPF program is compiled from
// it at build time (seccomp_gen/), so nothing here links libseccomp.
#include "engine/seccomp_policy.h"

#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>

#include "engine/seccomp_policy_rules.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

namespace paddock::engine {
namespace {

struct NamespaceFlag {
  std::uint64_t flag;
  const char* unshare_label;
  const char* clone_label;
};

constexpr NamespaceFlag kNamespaceFlags[] = {
    {CLONE_NEWUSER, "unshare(CLONE_NEWUSER)", "clone(CLONE_NEWUSER)"},
    {CLONE_NEWNS, "unshare(CLONE_NEWNS)", "clone(CLONE_NEWNS)"},
    {CLONE_NEWPID, "unshare(CLONE_NEWPID)", "clone(CLONE_NEWPID)"},
    {CLONE_NEWNET, "unshare(CLONE_NEWNET)", "clone(CLONE_NEWNET)"},
    {CLONE_NEWUTS, "unshare(CLONE_NEWUTS)", "clone(CLONE_NEWUTS)"},
    {CLONE_NEWIPC, "unshare(CLONE_NEWIPC)", "clone(CLONE_NEWIPC)"},
    {CLONE_NEWCGROUP, "unshare(CLONE_NEWCGROUP)", "clone(CLONE_NEWCGROUP)"},
    {CLONE_NEWTIME, "unshare(CLONE_NEWTIME)", "clone(CLONE_NEWTIME)"},
};

const char* errno_name(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    default: return "errno";
  }
}

}  // namespace

std::vector<SeccompRule> seccomp_rules(const SeccompOptions& opts) {
  std::vector<SeccompRule> r = {
      // The mount family: the sandbox's view of the filesystem is fixed at setup.
      {"mount", EPERM, "changing mounts could undo the sandbox's filesystem view"},
      {"umount2", EPERM, "unmounting could reveal what a mask hides"},
      {"pivot_root", EPERM, "changing the root is part of the mount family"},
      {"move_mount", EPERM, "new mount API: part of the mount family"},
      {"open_tree", EPERM, "new mount API: part of the mount family"},
      {"fsopen", EPERM, "new mount API: part of the mount family"},
      {"fsconfig", EPERM, "new mount API: part of the mount family"},
      {"fsmount", EPERM, "new mount API: part of the mount family"},
      {"fspick", EPERM, "new mount API: part of the mount family"},
      {"mount_setattr", EPERM, "could clear read-only flags on mounts"},
      // Namespaces: nested user namespaces hand out capabilities, a classic kernel attack surface.
      {"setns", EPERM, "joining other namespaces"},
      {"clone3", ENOSYS, "its flags live in memory seccomp cannot inspect; libc falls back to clone"},
      // io_uring bypasses syscall filtering and has a long record of kernel exploits.
      {"io_uring_setup", ENOSYS, "io_uring: bypasses seccomp, frequent kernel exploit target"},
      {"io_uring_enter", ENOSYS, "io_uring: bypasses seccomp, frequent kernel exploit target"},
      {"io_uring_register", ENOSYS, "io_uring: bypasses seccomp, frequent kernel exploit target"},
      // Kernel keyrings are not namespaced: keys of the user's other sessions live there.
      {"add_key", EPERM, "kernel keyrings are shared with the host user"},
      {"request_key", EPERM, "kernel keyrings are shared with the host user"},
      {"keyctl", EPERM, "kernel keyrings are shared with the host user"},
      // Kernel attack surface no coding agent needs.
      {"bpf", EPERM, "eBPF: large kernel attack surface"},
      {"perf_event_open", EPERM, "performance counters: side channels and kernel attack surface"},
      {"userfaultfd", EPERM, "used to win kernel race conditions in exploits"},
      {"open_by_handle_at", EPERM, "opens files by handle, bypassing path-based restrictions (shocker)"},
      {"name_to_handle_at", EPERM, "the other half of open_by_handle_at"},
      {"kexec_load", EPERM, "loads a new kernel"},
      {"kexec_file_load", EPERM, "loads a new kernel"},
      {"init_module", EPERM, "loads kernel modules"},
      {"finit_module", EPERM, "loads kernel modules"},
      {"delete_module", EPERM, "unloads kernel modules"},
      {"syslog", EPERM, "reads the kernel log (addresses, host activity)"},
      {"acct", EPERM, "process accounting is host-wide"},
      {"swapon", EPERM, "host-wide swap configuration"},
      {"swapoff", EPERM, "host-wide swap configuration"},
      {"reboot", EPERM, "reboots the host"},
      {"settimeofday", EPERM, "the clock is host-wide"},
      {"clock_settime", EPERM, "the clock is host-wide"},
      {"clock_adjtime", EPERM, "the clock is host-wide"},
      {"adjtimex", EPERM, "the clock is host-wide"},
      {"quotactl", EPERM, "filesystem quotas are host-wide"},
      {"vhangup", EPERM, "hangs up the terminal"},
      {"iopl", EPERM, "raw I/O port access"},
      {"ioperm", EPERM, "raw I/O port access"},
      {"lookup_dcookie", EPERM, "kernel profiling interface"},
      {"uselib", EPERM, "obsolete loader interface with a history of bugs"},
      // Terminal input injection: compared on the low 32 bits, as the kernel truncates the command.
      {"ioctl", EPERM, "pushes characters into a terminal's input queue", 1, 0xffffffffu, TIOCSTI,
       "ioctl(TIOCSTI)"},
      {"ioctl", EPERM, "Linux console control: selection paste injects input", 1, 0xffffffffu, TIOCLINUX,
       "ioctl(TIOCLINUX)"},
      {"ioctl", EPERM, "changing a terminal's line discipline loads rarely used kernel code", 1, 0xffffffffu,
       TIOCSETD, "ioctl(TIOCSETD)"},
      // personality flags that weaken memory protections.
      {"personality", EPERM, "READ_IMPLIES_EXEC makes every readable mapping executable", 0, READ_IMPLIES_EXEC,
       READ_IMPLIES_EXEC, "personality(READ_IMPLIES_EXEC)"},
      {"personality", EPERM, "MMAP_PAGE_ZERO maps page zero, helping null-pointer exploits", 0, MMAP_PAGE_ZERO,
       MMAP_PAGE_ZERO, "personality(MMAP_PAGE_ZERO)"},
  };
  for (const NamespaceFlag& ns : kNamespaceFlags) {
    r.push_back({"unshare", EPERM, "new namespaces (nested user namespaces grant capabilities)", 0, ns.flag, ns.flag,
                 ns.unshare_label});
    r.push_back({"clone", EPERM, "new namespaces (nested user namespaces grant capabilities)", 0, ns.flag, ns.flag,
                 ns.clone_label});
  }
  for (const SeccompRule& m : setid_mode_rules()) r.push_back(m);
  if (opts.deny_inet_sockets) {
    r.push_back({"socket", EAFNOSUPPORT, "network off without a network namespace: no IPv4 sockets", 0,
                 0xffffffffu, AF_INET, "socket(AF_INET)"});
    r.push_back({"socket", EAFNOSUPPORT, "network off without a network namespace: no IPv6 sockets", 0,
                 0xffffffffu, AF_INET6, "socket(AF_INET6)"});
    r.push_back({"socket", EAFNOSUPPORT, "network off without a network namespace: no raw packet sockets", 0,
                 0xffffffffu, AF_PACKET, "socket(AF_PACKET)"});
  }
  return r;
}

std::vector<SeccompEntry> seccomp_denylist(const SeccompOptions& opts) {
  std::vector<SeccompEntry> out;
  for (const SeccompRule& r : seccomp_rules(opts))
    out.push_back({r.label ? r.label : r.name, errno_name(r.err), r.why});
  out.push_back({"(any non-native syscall ABI)", "ENOSYS", "i386 via int 0x80 and x32 bypass a native-only filter"});
  return out;
}

}  // namespace paddock::engine
