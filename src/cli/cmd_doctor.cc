// paddock doctor: what isolation this kernel gives, and what is degraded.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/policy_flags.h"
#include "engine/apparmor.h"
#include "engine/resources.h"
#include "engine/seccomp_policy.h"
#include "paddock/features.h"
#include "paddock/jail_backend.h"

namespace paddock::cli {
namespace {

const char* yes(bool b) { return b ? "yes" : "no"; }

// --backend (paddock run, paddock jail exec): whether each is here and what it does not give.
struct BackendInfo {
  std::string name, found;
  std::vector<std::string> missing;
};
std::vector<BackendInfo> backends() {
  std::vector<BackendInfo> out;
  for (const auto& n : jail::backend_names()) {
    auto j = jail::make_jail(n);
    if (!j) continue;
    BackendInfo b{n, "", (*j)->missing_guarantees(Policy{})};
    if (n == "native") b.found = "built in";
    else if (n == "bubblewrap") b.found = access("/usr/bin/bwrap", X_OK) == 0 ? "/usr/bin/bwrap" : "not installed";
    else if (auto ok = jail::systemd_user_manager(jail::systemd_host_now()); ok) b.found = "your user manager is reachable";
    else b.found = ok.error().message;
    out.push_back(std::move(b));
  }
  return out;
}

// How `--memory`, `--pids` and `--cpu` would be enforced for this user here: a trial resource
// control (its cgroups, if any, are made and removed at once).
std::vector<LimitReport> limit_mechanisms(const Features& f) {
  Limits l;
  l.memory_bytes = 1ull << 30;
  l.pids = 512;
  l.cpu = 1;
  l.best_effort = true;
  engine::ResourceOptions o;
  o.new_user_namespace = o.new_pid_namespace = f.user_namespaces;
  auto rc = engine::create_resource_control(l, f, o);
  if (!rc) return {};
  RunResult r;
  (*rc)->finish(r);
  std::vector<LimitReport> out;
  for (const LimitReport& rep : r.limits)
    if (rep.name == "memory" || rep.name == "pids" || rep.name == "cpu") out.push_back(rep);
  return out;
}

// Writes to host-backed paths (the project) are not capped in space or inodes: a sandbox can fill
// the disk. Nothing the kernel offers an unprivileged process caps them (issue 12, "Also").
constexpr const char* kProjectWriteCapReason =
    "no space or inode cap exists for host-backed paths without privileges: cgroups limit I/O rate, not "
    "space; project quotas (XFS, ext4 -O project) need root and a filesystem mounted with prjquota "
    "(docs/limits.md says how an administrator sets one up); /tmp and HOME are capped tmpfs";

// The policy `paddock run` with no flags would use here, for the gaps that depend on it
// (protected files, /sys under a broad rule); an empty policy when it cannot be built.
Policy default_run_policy() {
  auto ctx = HostContext::from_process();
  if (!ctx) return Policy{};
  PolicyBuilder b(*ctx);
  if (!apply_policy_flags(PolicyFlags{}, *ctx, b)) return Policy{};
  auto p = b.build();
  return p ? std::move(*p) : Policy{};
}

int do_doctor(bool json) {
  const Features& f = host_features().get();
  const std::vector<LimitReport> limits = limit_mechanisms(f);
  const bool fallback = !(f.user_namespaces && f.proc_mount);
  // Without Landlock either, `run` refuses (plan_fallback): there is no fallback to describe.
  const std::vector<IsolationGap> gaps =
      fallback && f.landlock_abi > 0 ? fallback_gaps(default_run_policy(), f) : std::vector<IsolationGap>{};
  const engine::AppArmorStatus aa = engine::apparmor_status(engine::read_apparmor_inputs());
  // The egress filter needs the sandbox's own network namespace (check_mode() refuses otherwise).
  const bool allowlist = f.user_namespaces && f.proc_mount;
  if (json) {
    nlohmann::json j = to_json(f);
    j["limits"] = nlohmann::json::object();
    for (const LimitReport& rep : limits)
      j["limits"][rep.name] = {{"enforced_by", rep.enforced_by}, {"weaker", rep.weaker}};
    j["domain_allowlist"] = allowlist;
    j["project_write_cap"] = {{"capped", false}, {"reason", kProjectWriteCapReason}};
    j["isolation_gaps"] = nlohmann::json::array();
    for (const IsolationGap& g : gaps) j["isolation_gaps"].push_back({{"name", g.name}, {"consequence", g.consequence}});
    j["backends"] = nlohmann::json::object();
    for (const auto& b : backends()) j["backends"][b.name] = {{"available", b.found}, {"not_enforced", b.missing}};
    j["apparmor"] = {{"restricts_userns", aa.restricts_userns},
                     {"profile_applies", aa.profile_applies},
                     {"detail", aa.detail},
                     {"fix", aa.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(aa.fix)}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("paddock doctor\n");
  std::printf("  user namespaces:   %s%s%s\n", yes(f.user_namespaces), f.userns_detail.empty() ? "" : " — ",
              f.userns_detail.c_str());
  std::printf("  fresh /proc:       %s\n", yes(f.proc_mount));
  std::printf("  apparmor:          %s\n", aa.detail.c_str());
  if (!aa.fix.empty()) std::printf("                     fix: %s\n", aa.fix.c_str());
  if (f.landlock_abi > 0) std::printf("  landlock:          ABI %d\n", f.landlock_abi);
  else std::printf("  landlock:          no — %s\n", f.landlock_detail.c_str());
  std::printf("  seccomp filters:   %s\n", yes(f.seccomp_filter));
  // docs/supervisor.md: the denylist's refusals counted by name take the task's one listener.
  if (f.seccomp_user_notif) {
    std::printf("  denied syscalls:   counted by name (seccomp user notification, with namespaces and without --exec);\n"
                "                     a program inside cannot install a seccomp listener of its own (EBUSY)\n");
  } else {
    std::printf("  denied syscalls:   refused, not counted (no seccomp user notification here)\n");
  }
  std::printf("  mount_setattr:     %s\n", yes(f.mount_setattr));
  std::string ctrls;
  for (const auto& c : f.cgroup_controllers) ctrls += (ctrls.empty() ? "" : ",") + c;
  std::printf("  cgroups:           v%d (%s) controllers: %s\n", f.cgroup_version, f.cgroup_detail.c_str(),
              ctrls.empty() ? "none" : ctrls.c_str());
  std::printf("  legacy TIOCSTI:    %s (blocked by seccomp either way)\n", yes(f.tiocsti_legacy));
  std::string how;
  bool limits_weaker = false;
  for (const LimitReport& rep : limits) {
    how += (how.empty() ? "" : ", ") + rep.name +
           (rep.enforced_by == "not enforced" ? " not enforced" : " by " + rep.enforced_by);
    limits_weaker = limits_weaker || rep.weaker || rep.enforced_by == "not enforced";
  }
  std::printf("  resource limits:   %s\n", how.empty() ? "unknown" : how.c_str());
  std::printf("  project writes:    not capped — %s\n", kProjectWriteCapReason);
  std::printf("  domain allowlist:  %s\n", allowlist
                                               ? "yes (--allow-domain: own network namespace + egress filter)"
                                               : "no — needs user namespaces; --allow-domain refuses to run");
  for (const auto& b : backends()) {
    std::printf("  backend %-10s %s%s\n", (b.name + ":").c_str(), b.found.c_str(),
                b.missing.empty() ? " — every guarantee above" : "");
    for (const auto& m : b.missing) std::printf("                     not enforced: %s\n", m.c_str());
  }
  std::printf("\n`paddock run` will use: %s\n", describe_isolation(f).c_str());
  bool degraded = false;
  if (fallback && f.landlock_abi == 0) {
    degraded = true;
    std::printf("  degraded: neither user namespaces nor Landlock — `paddock run` refuses to run\n");
    if (!aa.fix.empty()) std::printf("    get namespaces back: %s\n", aa.fix.c_str());
  } else if (fallback) {
    degraded = true;
    std::printf("  degraded: no namespaces — Landlock + seccomp only, which lacks (for `paddock run` here):\n");
    for (const IsolationGap& g : gaps) std::printf("    - %s\n", gap_line(g).c_str());
    std::printf("    refuse instead: --require-namespaces, or [sandbox] require_namespaces = true in a profile\n");
    if (!aa.fix.empty()) std::printf("    get namespaces back: %s\n", aa.fix.c_str());
  }
  if (f.landlock_abi == 0) {
    degraded = true;
    std::printf("  degraded: no Landlock — filesystem rules rely on mounts alone\n");
  } else if (f.landlock_abi < 6) {
    degraded = true;
    std::printf("  degraded: Landlock ABI %d < 6 — no scoping of abstract unix sockets and signals "
                "(matters with --allow-net)\n",
                f.landlock_abi);
  }
  if (!f.seccomp_filter) {
    degraded = true;
    std::printf("  degraded: no seccomp filters\n");
  }
  if (limits_weaker) {
    degraded = true;
    std::printf("  degraded: no writable cgroup for this user — --memory and --pids fall back to rlimits, "
                "--cpu is refused unless --best-effort-limits (docs/limits.md: run as root or in a "
                "delegated cgroup)\n");
  }
  if (!degraded) std::printf("  nothing degraded\n");
  return 0;
}

}  // namespace

void register_doctor(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("doctor", "Report what isolation this kernel gives");
  cmd->add_flag("--json", *json, "Stable JSON output");
  cmd->callback([json] { set_exit_code(do_doctor(*json)); });
}

}  // namespace paddock::cli
