// What the Landlock + seccomp fallback lacks next to namespaces (issue 17): one line per missing
// or weaker protection, each true of this policy on this host. Landlock only adds access along
// paths and governs neither unix connect nor metadata changes (the broker covers those where it
// can: fallback_broker.h), nor what is not a path (/proc's list, SysV IPC); without namespaces
// nothing else can take the rest away from an unprivileged process.
#include <algorithm>

#include "paddock/features.h"
#include "paddock/policy.h"
#include "policy/path_util.h"

namespace paddock {
namespace {

bool any_existing_protected(const Policy& p) {
  return std::any_of(p.protected_paths.begin(), p.protected_paths.end(),
                     [](const ProtectedPath& pp) { return pp.exists; });
}

// A readable rule at or above /sys makes its files readable in the fallback (namespaces never
// show it); its path, or empty.
std::string rule_covering_sys(const Policy& p) {
  for (const PathRule& r : p.paths)
    if (grants(r.access, Access::Read) && path::is_at_or_under("/sys", r.path)) return r.path;
  return "";
}

}  // namespace

std::vector<IsolationGap> fallback_gaps(const Policy& policy, const Features& f, bool exec_in_place) {
  std::vector<IsolationGap> g;
  g.push_back({"no private /proc",
               "every host process is listed in /proc with its command line (Landlock still refuses "
               "ptrace of them)"});
  g.push_back({"no private /tmp",
               "the host's /tmp is not writable but its names are listable; TMPDIR and HOME point at a "
               "private directory instead"});
  g.push_back({"host directory names listable",
               "the names in every host directory, the real HOME's included, can be listed; contents "
               "stay unreadable unless a rule grants them"});
  const std::string sys_rule = rule_covering_sys(policy);
  g.push_back({"host /sys", sys_rule.empty()
                                ? "the host's /sys names are listable (with namespaces there is no /sys)"
                                : "the host's /sys is readable through the rule on " + sys_rule +
                                      " (with namespaces there is no /sys)"});
  g.push_back({"host SysV IPC",
               "System V shared memory, semaphores and message queues of the host are reachable as their "
               "modes allow (no IPC namespace)"});
  // Closed by the fallback's broker filter (fallback_broker.h), which needs seccomp.
  if (!f.seccomp_filter)
    g.push_back({"host unix sockets reachable",
                 "any pathname unix socket this user can reach (a container engine, ssh-agent, the session "
                 "bus) accepts connections: Landlock does not govern connect, and without seccomp filters "
                 "AF_UNIX sockets cannot be refused"});
  if (f.landlock_abi < 6) {
    if (policy.network.mode != NetMode::Host)
      g.push_back({"host abstract unix sockets reachable",
                   "Landlock ABI " + std::to_string(f.landlock_abi) +
                       " < 6 cannot scope abstract unix sockets, and there is no network namespace"});
    g.push_back({"host processes can be signalled",
                 "Landlock ABI " + std::to_string(f.landlock_abi) +
                     " < 6 cannot scope signals: the user's other processes can be killed"});
  }
  // Brokered by paddock through seccomp user notification, which needs paddock to stay (not --exec).
  if (!f.seccomp_filter || exec_in_place)
    g.push_back({"read-only paths' metadata",
                 std::string(exec_in_place ? "--exec leaves no paddock to check" : "without seccomp filters nothing checks") +
                     " chmod, chown, utimes and extended attributes: those of read-only paths can be changed, and "
                     "the host sees it (Landlock does not govern them)"});
  if (any_existing_protected(policy))
    g.push_back({"protected files writable during the run",
                 "files the host runs later (.git/hooks, .envrc, ...) inside writable paths can be changed; "
                 "what the run created or changed there is moved aside after it (the project's own .git/config put back)"});
  g.push_back({"no pid namespace",
               exec_in_place ? "processes the command detaches outlive it: --exec leaves no init to kill them"
                             : "processes the command detaches are killed by paddock's init when the run ends, not "
                               "by the kernel"});
  return g;
}

std::string gap_line(const IsolationGap& g) { return g.name + " — " + g.consequence; }

}  // namespace paddock
