// paddock doctor: what isolation this kernel gives, and what is degraded.
#include <cstdio>

#include "cli/commands.h"
#include "engine/seccomp_policy.h"
#include "paddock/features.h"

namespace paddock::cli {
namespace {

const char* yes(bool b) { return b ? "yes" : "no"; }

int do_doctor(bool json) {
  const Features& f = host_features().get();
  if (json) {
    std::printf("%s\n", to_json(f).dump(2).c_str());
    return 0;
  }
  std::printf("paddock doctor\n");
  std::printf("  user namespaces:   %s%s%s\n", yes(f.user_namespaces), f.userns_detail.empty() ? "" : " — ",
              f.userns_detail.c_str());
  std::printf("  fresh /proc:       %s\n", yes(f.proc_mount));
  if (f.landlock_abi > 0) std::printf("  landlock:          ABI %d\n", f.landlock_abi);
  else std::printf("  landlock:          no — %s\n", f.landlock_detail.c_str());
  std::printf("  seccomp filters:   %s\n", yes(f.seccomp_filter));
  std::printf("  mount_setattr:     %s\n", yes(f.mount_setattr));
  std::string ctrls;
  for (const auto& c : f.cgroup_controllers) ctrls += (ctrls.empty() ? "" : ",") + c;
  std::printf("  cgroups:           v%d (%s) controllers: %s\n", f.cgroup_version, f.cgroup_detail.c_str(),
              ctrls.empty() ? "none" : ctrls.c_str());
  std::printf("  legacy TIOCSTI:    %s (blocked by seccomp either way)\n", yes(f.tiocsti_legacy));
  std::printf("\n`paddock run` will use: %s\n", describe_isolation(f).c_str());
  bool degraded = false;
  if (!(f.user_namespaces && f.proc_mount)) {
    degraded = true;
    std::printf("  degraded: no namespaces — Landlock + seccomp only; no private /proc or /tmp; "
                "use --require-namespaces to refuse instead\n");
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
