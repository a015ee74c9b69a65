// Probes what isolation this kernel gives: by trying, never by reading version numbers.
#include "paddock/features.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "sys/syscalls.h"

namespace paddock {
namespace {

std::string read_small(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool write_str(const char* path, const char* s) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = write(fd, s, std::strlen(s));
  close(fd);
  return n == static_cast<ssize_t>(std::strlen(s));
}

// Exit codes of the throwaway userns child.
enum ProbeCode {
  kOk = 0,
  kMapFailed = 10,
  kMountFailed = 11,
  kProcFailed = 12,
  // A call the sandbox's setup makes (src/engine/child.cc) refused inside the user namespace,
  // as a container's seccomp profile does (podman's default refuses sethostname; moby's default
  // every one of these): kRefused + its index in kSetupCalls; kFailed + it for another error.
  kRefused = 20,
  kFailed = 40,
};
constexpr const char* kSetupCalls[] = {"sethostname", "mount_setattr", "pivot_root", "umount2",
                                       "unshare(CLONE_NEWCGROUP)"};
constexpr int kSetupCallCount = sizeof(kSetupCalls) / sizeof(kSetupCalls[0]);

void probe_userns(Features& f) {
  unsigned uid = getuid(), gid = getgid();
  char umap[64], gmap[64];
  std::snprintf(umap, sizeof(umap), "%u %u 1\n", uid, uid);
  std::snprintf(gmap, sizeof(gmap), "%u %u 1\n", gid, gid);
  long pid = sys::clone_fork(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS, nullptr);
  if (pid < 0) {
    f.user_namespaces = false;
    f.userns_detail = std::string("cannot create a user namespace: ") + std::strerror(errno);
    std::string sysctl = read_small("/proc/sys/kernel/unprivileged_userns_clone");
    if (sysctl == "0") f.userns_detail += " (kernel.unprivileged_userns_clone=0)";
    std::string maxns = read_small("/proc/sys/user/max_user_namespaces");
    if (maxns == "0") f.userns_detail += " (user.max_user_namespaces=0)";
    return;
  }
  if (pid == 0) {
    // Throwaway child: async-signal-safe calls only.
    write_str("/proc/self/setgroups", "deny");
    if (!write_str("/proc/self/uid_map", umap) || !write_str("/proc/self/gid_map", gmap)) _exit(kMapFailed);
    // The sandbox's setup in its order (child.cc: child_main, build_root), each step tried.
    auto refused = [](int call) { _exit((errno == EPERM || errno == EACCES ? kRefused : kFailed) + call); };
    if (sethostname("paddock", 7) < 0) refused(0);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) < 0) _exit(kMountFailed);
    if (mount("tmpfs", "/tmp", "tmpfs", 0, "size=4k") < 0) _exit(kMountFailed);
    if (sys::mount_setattr_recursive("/tmp", sys::kMountAttrNosuid, 0) < 0 && errno != ENOSYS) refused(1);
    if (chdir("/tmp") < 0 || mkdir("old", 0700) < 0 || mkdir("proc", 0700) < 0) _exit(kMountFailed);
    if (sys::pivot_root(".", "old") < 0) refused(2);
    // pid 1 of the new namespace: a fresh procfs must be mountable (while the old root, with
    // the host's /proc, is still attached: the kernel asks for a fully visible one).
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) < 0) _exit(kProcFailed);
    if (umount2("/old", MNT_DETACH) < 0) refused(3);
    if (unshare(CLONE_NEWCGROUP) < 0 && errno != EINVAL) refused(4);
    _exit(kOk);
  }
  int st = 0;
  while (waitpid(static_cast<pid_t>(pid), &st, 0) < 0 && errno == EINTR) {
  }
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  f.user_namespaces = code == kOk || code == kProcFailed;
  f.proc_mount = code == kOk;
  switch (code) {
    case kOk: break;
    case kMapFailed:
      f.userns_detail = "user namespace created but its uid map cannot be written";
      if (read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1")
        f.userns_detail += " (kernel.apparmor_restrict_unprivileged_userns=1)";
      break;
    case kMountFailed:
      f.userns_detail = "user namespace has no usable capabilities (mounts refused";
      if (read_small("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1")
        f.userns_detail += "; kernel.apparmor_restrict_unprivileged_userns=1";
      f.userns_detail += ")";
      break;
    case kProcFailed: f.userns_detail = "a fresh /proc cannot be mounted (procfs is partly hidden, as in some containers)"; break;
    default:
      if (code >= kRefused && code < kRefused + kSetupCallCount) {
        // spawn.cc's is_namespace_failure() falls back on the same refusals.
        f.userns_detail = std::string("user namespace created but ") + kSetupCalls[code - kRefused] +
                          " is refused in it (a container's seccomp profile; docs/scale.md#containers)";
      } else if (code >= kFailed && code < kFailed + kSetupCallCount) {
        f.userns_detail = std::string("user namespace created but ") + kSetupCalls[code - kFailed] + " fails in it";
      } else {
        f.userns_detail = "probe child failed";
      }
      break;
  }
}

void probe_landlock(Features& f) {
  f.landlock_abi = sys::landlock_abi_version();
  if (f.landlock_abi == 0) {
    int e = errno;
    f.landlock_detail = e == ENOSYS      ? "not built into this kernel"
                        : e == EOPNOTSUPP ? "built in but disabled at boot (lsm=)"
                                          : std::string("unavailable: ") + std::strerror(e);
  }
}

void probe_cgroups(Features& f) {
  std::ifstream mounts("/proc/self/mounts");
  std::string dev, dir, type, opts;
  std::string rest;
  std::set<std::string> v1;
  std::string unified;
  while (mounts >> dev >> dir >> type >> opts) {
    std::getline(mounts, rest);
    if (type == "cgroup2") unified = dir;
    if (type == "cgroup") {
      std::stringstream ss(opts);
      std::string o;
      while (std::getline(ss, o, ',')) {
        if (o == "memory" || o == "pids" || o == "cpu" || o == "cpuacct" || o == "cpuset" || o == "freezer" ||
            o == "blkio" || o == "devices" || o == "io")
          v1.insert(o);
      }
    }
  }
  if (!v1.empty()) {
    f.cgroup_version = 1;
    f.cgroup_controllers.assign(v1.begin(), v1.end());
    f.cgroup_detail = unified.empty() ? "cgroup v1" : "hybrid: v1 controllers, cgroup2 at " + unified;
  } else if (!unified.empty()) {
    f.cgroup_version = 2;
    std::stringstream ss(read_small((unified + "/cgroup.controllers").c_str()));
    std::string c;
    while (ss >> c) f.cgroup_controllers.push_back(c);
    f.cgroup_detail = "cgroup v2 at " + unified;
  } else {
    f.cgroup_detail = "no cgroup filesystem mounted";
  }
}

Features probe_quick() {
  Features f;
  probe_landlock(f);
  f.no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;
  // seccomp(SECCOMP_GET_ACTION_AVAIL) answers without installing anything.
  unsigned action = 0x7fff0000U;  // SECCOMP_RET_ALLOW
  f.seccomp_filter = sys::seccomp(2 /*SECCOMP_GET_ACTION_AVAIL*/, 0, &action) == 0;
  unsigned notify = 0x7fc00000U;  // SECCOMP_RET_USER_NOTIF
  f.seccomp_user_notif = f.seccomp_filter && sys::seccomp(2 /*SECCOMP_GET_ACTION_AVAIL*/, 0, &notify) == 0;
  errno = 0;
  f.mount_setattr = !(sys::mount_setattr_recursive("/nonexistent-paddock-probe", 0, 0) < 0 && errno == ENOSYS);
  errno = 0;
  f.clone3 = !(sys::clone3(nullptr) < 0 && errno == ENOSYS);
  return f;
}

// What only `doctor` reports: every run would pay for reading /proc/self/mounts for nothing
// (resource limits discover the cgroup layout themselves, and only when a limit needs it).
Features probe_all() {
  Features f = probe_quick();
  probe_cgroups(f);
  std::string tiocsti = read_small("/proc/sys/dev/tty/legacy_tiocsti");
  f.tiocsti_legacy = tiocsti != "0";
  probe_userns(f);
  if (namespaces_disabled_by_env() && f.user_namespaces) {
    f.user_namespaces = false;
    f.proc_mount = false;
    f.userns_detail = "available, but disabled by PADDOCK_DANGER_DISABLE_NAMESPACES=1";
  }
  return f;
}

class HostProbe final : public FeatureProbe {
 public:
  const Features& get() override {
    std::call_once(once_, [this] { features_ = probe_all(); });
    return features_;
  }

 private:
  std::once_flag once_;
  Features features_;
};

}  // namespace

bool namespaces_disabled_by_env() {
  const char* v = std::getenv("PADDOCK_DANGER_DISABLE_NAMESPACES");
  return v && std::string(v) == "1";
}

FeatureProbe& host_features() {
  static HostProbe probe;
  return probe;
}

const Features& quick_host_features() {
  static const Features f = probe_quick();
  return f;
}

std::string describe_isolation(const Features& f) {
  std::string s;
  if (f.user_namespaces && f.proc_mount) s = "namespaces";
  if (f.landlock_abi > 0) s += (s.empty() ? "" : "+") + std::string("landlock(ABI ") + std::to_string(f.landlock_abi) + ")";
  if (f.seccomp_filter) s += (s.empty() ? "" : "+") + std::string("seccomp");
  return s.empty() ? "none" : s;
}

nlohmann::json to_json(const Features& f) {
  return {
      {"version", "paddock.doctor/1"},
      {"user_namespaces", {{"available", f.user_namespaces}, {"detail", f.userns_detail}}},
      {"proc_mount", f.proc_mount},
      {"landlock", {{"abi", f.landlock_abi}, {"detail", f.landlock_detail}}},
      {"seccomp_filter", f.seccomp_filter},
      {"no_new_privs", f.no_new_privs},
      {"mount_setattr", f.mount_setattr},
      {"clone3", f.clone3},
      {"cgroup", {{"version", f.cgroup_version}, {"controllers", f.cgroup_controllers}, {"detail", f.cgroup_detail}}},
      {"tiocsti_legacy", f.tiocsti_legacy},
      {"isolation", describe_isolation(f)},
  };
}

}  // namespace paddock
