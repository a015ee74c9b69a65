// Turns a Policy into the filesystem part of a Plan: the mount operations that build the
// sandbox's root (namespace mode) and the Landlock rules (both modes). Runs in the parent.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/plan.h"
#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock::engine {

// Where the policy file and other paddock-made files live inside the sandbox.
inline constexpr const char* kPaddockDir = "/.paddock";
inline constexpr const char* kPolicyFile = "/.paddock/policy.json";
// The empty mode-000 file bound over sensitive files; in the scratch root the child builds from.
inline constexpr const char* kMaskSource = "/paddock-masked";

struct FsPlanInputs {
  int landlock_abi = 0;
  bool namespaces = true;
  std::string policy_json;       // written to kPolicyFile (namespace mode)
  std::string resolv_conf;       // non-empty: replaces /etc/resolv.conf inside (filtered network)
  // Fallback mode: private directories the parent made for HOME, TMPDIR and the policy file.
  std::string fallback_home, fallback_tmp, fallback_policy_file;
  std::vector<SandboxMount> extra_mounts;  // RunOptions::mounts
  std::string checkpoint_socket;           // RunOptions::checkpoint_socket
  // Namespace mode: the session's denials as paddock writes them (host path), bound read-only at
  // <paddock dir>/denials.jsonl for `paddock why --self --denials` inside (docs/supervisor.md).
  std::string denials_file;
};

struct FsPlan {
  std::vector<MountOp> mounts;
  std::vector<std::string> remount_ro_at_end;
  LandlockPlan landlock;
  std::vector<std::string> warnings;
  std::string policy_file = kPolicyFile;  // where the policy file is inside (namespace mode)
  // The fresh HOME's tmpfs (its path inside; empty when a rule or mount takes HOME's place), and
  // the paths in it that the plan itself creates (mount points and the directories above them).
  std::string scratch_home;
  std::set<std::string> scratch_setup;
  std::string denials_file;               // where the denials file is inside, when bound
};

Result<FsPlan> plan_filesystem(const Policy& policy, const FsPlanInputs& in);

// Landlock access masks for a rule's Access at an ABI (exposed for tests and `why`).
std::uint64_t landlock_access_for(Access a, int abi);
std::uint64_t landlock_handled_fs(int abi);

// Path order of the mount operations: component by component, so a directory's subtree follows
// it whole ("/a" < "/a/b" < "/a-b"). Exposed for tests.
bool path_component_less(std::string_view a, std::string_view b);

// How the network is cut off, decided once here from the policy's mode and whether the sandbox
// gets namespaces. The three places that act on it read this and nothing else: the clone flags
// (make_plan), --exec's own unshare (exec_in_place_impl) and the fallback's seccomp socket rule.
struct NetIsolation {
  bool new_netns = false;          // CLONE_NEWNET: a network namespace of its own
  bool loopback_up = false;        // bring `lo` up in it
  bool deny_inet_sockets = false;  // seccomp: no AF_INET/AF_INET6/AF_PACKET sockets (no namespace)
};
NetIsolation net_isolation(NetMode mode, bool namespaces);

}  // namespace paddock::engine
