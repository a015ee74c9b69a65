// What isolation this kernel gives. Probed (never read from uname), cached, fakeable in tests,
// shown by `paddock doctor`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace paddock {

struct Policy;

struct Features {
  bool user_namespaces = false;
  std::string userns_detail;     // why not, when not ("kernel.apparmor_restrict_unprivileged_userns=1")
  bool proc_mount = false;       // a fresh /proc can be mounted inside (false in some containers)
  int landlock_abi = 0;          // 0: unavailable
  std::string landlock_detail;
  bool seccomp_filter = false;
  bool seccomp_user_notif = false;  // SECCOMP_RET_USER_NOTIF: the denylist's refusals counted by name
  bool no_new_privs = false;
  bool mount_setattr = false;    // recursive read-only binds
  bool clone3 = false;
  int cgroup_version = 0;        // 0 none, 1 v1 (or hybrid with v1 controllers), 2 unified
  std::vector<std::string> cgroup_controllers;  // usable ones
  std::string cgroup_detail;
  bool tiocsti_legacy = true;    // dev.tty.legacy_tiocsti (true when absent)
};

class FeatureProbe {
 public:
  virtual ~FeatureProbe() = default;
  virtual const Features& get() = 0;
};

// The real probe; results are cached after the first call. Thread-safe.
FeatureProbe& host_features();
// The cheap part of the probe (no throwaway namespace child, no file reads): Landlock, seccomp,
// no_new_privs, mount_setattr, clone3; the cgroup and TIOCSTI fields stay at their defaults.
// What `run` uses on its hot path; user namespaces are tried, not probed.
const Features& quick_host_features();

// PADDOCK_DANGER_DISABLE_NAMESPACES=1: `run` uses the Landlock + seccomp fallback, and the full
// probe reports user namespaces as unavailable, so `doctor` says what `run` does.
bool namespaces_disabled_by_env();

// A protection the Landlock + seccomp fallback lacks, or gives in a weaker form, compared with
// namespaces: a short stable name and what a sandboxed command can do because of it.
struct IsolationGap {
  std::string name;         // "no private /proc"
  std::string consequence;  // one line
};

// What the fallback lacks for this policy on a host with these features, in a fixed order; empty
// never (the fallback always lacks something). The one list `run` (stderr), the run report
// (isolation_gaps), the footer and `doctor` show, so each says exactly what the others say.
// `exec_in_place`: `run --exec`, where no init stays behind to sweep detached processes.
std::vector<IsolationGap> fallback_gaps(const Policy& policy, const Features& f, bool exec_in_place = false);
// "name — consequence": one line of stderr or of doctor's list.
std::string gap_line(const IsolationGap& g);

// What `paddock run` will get on this host, in words: "namespaces + landlock(ABI 6) + seccomp".
std::string describe_isolation(const Features& f);
nlohmann::json to_json(const Features& f);

}  // namespace paddock
