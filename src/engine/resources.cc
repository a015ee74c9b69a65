// Resource control: which mechanism enforces each limit on this host, set up before clone,
// read and removed after the run. Preference per limit: cgroup v2 controller, cgroup v1
// controller, rlimit fallback (weaker, said so), else refused unless best_effort.
#include "engine/resources.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "engine/cgroup_dir.h"
#include "engine/cgroup_layout.h"
#include "policy/units.h"
#include "sys/read_file.h"

namespace paddock::engine {
namespace {

constexpr std::uint64_t kCpuPeriodUs = 100000;
// pid_max cannot go below 301; the ceiling also loses up to 300 pids once allocation wraps.
constexpr std::uint64_t kMinPidsCeiling = 512;

// A systemd user manager to ask for a delegated scope: systemd-run and the user's bus.
bool systemd_user_manager() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (!runtime || !*runtime) return false;
  return ::access((std::string(runtime) + "/bus").c_str(), W_OK) == 0 &&
         (::access("/usr/bin/systemd-run", X_OK) == 0 || ::access("/bin/systemd-run", X_OK) == 0);
}

bool no_permission(int err) {
  return err == EACCES || err == EPERM || err == EROFS || err == ENOENT;
}

std::set<std::string> words(const std::optional<std::string>& s) {
  std::set<std::string> out;
  if (!s) return out;
  std::istringstream in(*s);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

bool host_has_swap() {
  auto m = sys::read_whole_file("/proc/meminfo");
  if (!m) return true;  // unknown: assume it does, so we never claim swap is covered
  auto pos = m->find("SwapTotal:");
  if (pos == std::string::npos) return false;
  return std::strtoull(m->c_str() + pos + 10, nullptr, 10) > 0;
}

// Tasks (threads included, as RLIMIT_NPROC counts them) whose real uid is `uid`, host-wide.
std::uint64_t tasks_of_uid(uid_t uid) {
  std::uint64_t n = 0;
  DIR* d = ::opendir("/proc");
  if (!d) return 0;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    auto st = sys::read_whole_file(std::string("/proc/") + e->d_name + "/status");
    if (!st) continue;
    auto u = st->find("\nUid:");
    auto t = st->find("\nThreads:");
    if (u == std::string::npos || t == std::string::npos) continue;
    if (std::strtoul(st->c_str() + u + 5, nullptr, 10) != uid) continue;
    n += std::strtoull(st->c_str() + t + 9, nullptr, 10);
  }
  ::closedir(d);
  return n;
}

std::string format_cpu(double cpu) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", cpu);
  return buf;
}

// The built-in process ceiling (limits.pids unset) by the cheapest bound there is: the sandbox's
// own pid_max, else RLIMIT_NPROC where it binds (not root, own user namespace), else a cgroup.
enum class CeilingBy { None, PidMax, Nproc, Cgroup };

CeilingBy ceiling_by(const Limits& limits, const ResourceOptions& options) {
  if (limits.pids || !limits.pids_ceiling) return CeilingBy::None;
  if (options.new_pid_namespace && options.pid_namespace_pid_max) return CeilingBy::PidMax;
  if (options.new_user_namespace && ::geteuid() != 0) return CeilingBy::Nproc;
  return CeilingBy::Cgroup;
}

class CgroupControl final : public ResourceControl {
 public:
  CgroupControl(Limits limits, ResourceOptions options)
      : limits_(limits), options_(options), ceiling_(ceiling_by(limits, options)) {}

  Result<void> plan(const CgroupLayout& layout);

  bool has_cgroups() const override { return v2_.valid() || !v1_.empty(); }
  std::vector<int> attach_fds() const override {
    std::vector<int> out = self_attach_fds();
    if (v2_.valid()) out.insert(out.begin(), v2_.procs_fd());
    return out;
  }
  std::vector<int> self_attach_fds() const override {
    std::vector<int> out;
    for (const CgroupDir& d : v1_) out.push_back(d.tasks_fd());
    return out;
  }
  std::vector<int> leave_fds() const override {
    std::vector<int> out;
    if (leave_.size() != v1_.size()) return out;
    for (const sys::UniqueFd& fd : leave_) out.push_back(fd.get());
    return out;
  }
  std::vector<RlimitSpec> rlimits() const override { return rlimits_; }
  Result<void> attach(pid_t pid) override {
    if (!v2_.valid() || born_in_v2_) return ok_result();
    const std::string s = std::to_string(pid);
    ssize_t n = sys::retry_eintr([&] { return ::write(v2_.procs_fd(), s.data(), s.size()); });
    if (n != static_cast<ssize_t>(s.size()))
      return errno_error("cannot move process " + s + " into its cgroup", errno, "join cgroup");
    return ok_result();
  }
  int clone_into_fd() const override {
    if (!v2_.valid()) return -1;
    if (!v2_dir_fd_) v2_dir_fd_.reset(::open(v2_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    return v2_dir_fd_.get();
  }
  void born_in_cgroup() override { born_in_v2_ = true; }
  std::uint64_t pid_max() const override { return pid_max_; }
  void started(pid_t pid) override { pid_ = pid; }
  bool kill_all() override;
  void finish(RunResult& result) override;
  void collect(RunResult& result) override;
  std::vector<std::string> remove_cgroups() override;
  std::vector<std::string> warnings() const override { return warnings_; }
  std::string describe() const override;

 private:
  const CgroupDir* v1_for(const std::string& ctrl) const {
    auto it = v1_index_.find(ctrl);
    return it == v1_index_.end() ? nullptr : &v1_[it->second];
  }
  bool v2_has(const std::string& ctrl) const { return v2_.valid() && v2_ctrls_.count(ctrl); }
  Result<void> setup_v2(const CgroupLayout& layout, const std::set<std::string>& wanted);
  Result<void> join_v1(const CgroupLayout& layout, const std::string& ctrl);
  Result<void> apply_memory(LimitReport& rep);
  Result<void> apply_pids(LimitReport& rep);
  void apply_pids_ceiling(LimitReport& rep);
  Result<void> apply_cpu(LimitReport& rep);
  Result<void> add_rlimit(int resource, rlim_t value, const char* name, LimitReport& rep);
  LimitReport& report(std::string name, std::string requested) {
    reports_.push_back(LimitReport{std::move(name), std::move(requested), "", false, false});
    return reports_.back();
  }
  void weaker(LimitReport& rep, std::string mechanism, const std::string& why) {
    rep.enforced_by = std::move(mechanism);
    rep.weaker = true;
    warnings_.push_back(rep.name + " " + rep.requested + ": " + why);
  }

  Limits limits_;
  ResourceOptions options_;
  CeilingBy ceiling_;
  CgroupDir v2_;
  std::set<std::string> v2_ctrls_;
  std::vector<CgroupDir> v1_;
  std::map<std::string, std::size_t> v1_index_;
  std::vector<sys::UniqueFd> leave_;  // "tasks" of our own cgroup in each hierarchy of v1_
  std::vector<RlimitSpec> rlimits_;
  std::vector<LimitReport> reports_;
  std::vector<std::string> warnings_;
  std::vector<std::string> unenforceable_;  // "cpu 1.5 (no writable cgroup with the cpu controller)"
  std::string v2_note_;                     // why cgroup2 was not used, for messages
  pid_t pid_ = 0;
  std::uint64_t pid_max_ = 0;  // pid_max(): the built-in ceiling through the pid namespace
  bool finished_ = false;
  mutable sys::UniqueFd v2_dir_fd_;  // clone_into_fd()
  bool born_in_v2_ = false;
};

Result<void> CgroupControl::setup_v2(const CgroupLayout& layout,
                                     const std::set<std::string>& wanted) {
  if (layout.v2_own_dir.empty()) return ok_result();
  // After an earlier run of this process stepped aside into its leaf, runs still go beside it.
  const std::string own = cgroup2_run_parent(layout.v2_own_dir, ::getpid());
  // What a SIGKILLed paddock left here goes first, whether or not this run makes a cgroup of its
  // own below: a run without limits (none made) would otherwise never sweep it.
  sweep_stale_cgroups(own);
  const std::set<std::string> available = words(sys::read_whole_file(own + "/cgroup.controllers"));
  std::set<std::string> enabled = words(sys::read_whole_file(own + "/cgroup.subtree_control"));
  std::string missing;
  for (const std::string& c : wanted)
    if (available.count(c) && !enabled.count(c)) missing += (missing.empty() ? "+" : " +") + c;
  if (!missing.empty()) {
    // Enable them for our children (stepping aside into a leaf when paddock is alone in its
    // cgroup: the "no internal processes" rule).
    if (int err = enable_subtree_controllers(own, missing); err != 0) {
      v2_note_ = "cannot enable " + missing + " in " + own +
                 (err == EBUSY ? " (other processes share paddock's cgroup)"
                  : no_permission(err) ? " (not delegated)" : ": " + std::string(std::strerror(err)));
    }
    enabled = words(sys::read_whole_file(own + "/cgroup.subtree_control"));
  }
  // With a pid namespace, cgroup2 is there only for its controllers: killing the tree and its
  // CPU time come from the namespace's init. None of the wanted ones in cgroup2 (a hybrid host,
  // where v1 has them): no cgroup2 cgroup, one mkdir and rmdir less.
  if (options_.new_pid_namespace &&
      std::none_of(wanted.begin(), wanted.end(), [&](const std::string& c) { return enabled.count(c) > 0; }))
    return ok_result();
  auto dir = CgroupDir::create(own + "/" + new_cgroup_name(), /*v2=*/true);
  if (!dir.ok()) {
    if (no_permission(dir.error().sys_errno)) {
      v2_note_ = "cgroup2 " + own + " is not writable";
      return ok_result();
    }
    return std::move(dir).take_error();
  }
  v2_ = std::move(dir).value();
  v2_ctrls_ = words(v2_.read("cgroup.controllers"));
  return ok_result();
}

Result<void> CgroupControl::join_v1(const CgroupLayout& layout, const std::string& ctrl) {
  if (v1_index_.count(ctrl)) return ok_result();
  auto it = layout.v1_own_dir.find(ctrl);
  if (it == layout.v1_own_dir.end()) return ok_result();
  // Co-mounted controllers ("cpu,cpuacct") share one directory.
  for (const auto& [other, dir] : layout.v1_own_dir) {
    if (dir == it->second && v1_index_.count(other)) {
      v1_index_[ctrl] = v1_index_[other];
      return ok_result();
    }
  }
  // Nested under our own cgroup, so limits set on us by a container still apply.
  sweep_stale_cgroups(it->second);
  auto dir = CgroupDir::create(it->second + "/" + new_cgroup_name(), /*v2=*/false);
  if (!dir.ok()) {
    if (no_permission(dir.error().sys_errno)) return ok_result();
    return std::move(dir).take_error();
  }
  v1_.push_back(std::move(dir).value());
  v1_index_[ctrl] = v1_.size() - 1;
  // The init's way back out (leave_fds()); without it the run waits for the init's exit. Only
  // a namespace init leaves, and not from a cgroup2 cgroup (set up before the v1 ones).
  if (options_.new_pid_namespace && !v2_.valid()) {
    if (int fd = sys::retry_eintr([&] { return ::open((it->second + "/tasks").c_str(), O_WRONLY | O_CLOEXEC); });
        fd >= 0)
      leave_.emplace_back(fd);
  }
  for (const auto& [other, d] : layout.v1_own_dir)
    if (d == it->second) v1_index_[other] = v1_.size() - 1;
  return ok_result();
}

// Cgroups cost a mkdir and an rmdir per hierarchy (0.1-0.5 ms each): made only when a limit
// needs one, a timeout needs a way to kill a tree that no pid namespace holds together, or the
// process ceiling has no cheaper bound.
bool needs_cgroup(const Limits& limits, const ResourceOptions& options) {
  return limits.memory_bytes || limits.pids || limits.cpu || (limits.timeout && !options.new_pid_namespace) ||
         ceiling_by(limits, options) == CeilingBy::Cgroup;
}

Result<void> CgroupControl::plan(const CgroupLayout& layout) {
  std::set<std::string> wanted;
  if (limits_.memory_bytes) wanted.insert("memory");
  if (limits_.pids || ceiling_ == CeilingBy::Cgroup) wanted.insert("pids");
  if (limits_.cpu) wanted.insert("cpu");
  if (limits_.cpu && !(*limits_.cpu > 0 && std::isfinite(*limits_.cpu)))
    return make_error("cpu limit must be a positive number of cores, not " +
                      format_cpu(*limits_.cpu), "limits");
  if (limits_.memory_bytes && *limits_.memory_bytes < (1u << 20))
    return make_error("memory limit " + format_size(*limits_.memory_bytes) +
                      " is too small to start anything (minimum 1M)", "limits");
  if (limits_.pids && *limits_.pids == 0)
    return make_error("pids limit must be at least 1", "limits");
  if (!limits_.pids && limits_.pids_ceiling && *limits_.pids_ceiling < kMinPidsCeiling)
    return make_error("process ceiling " + std::to_string(*limits_.pids_ceiling) + " is below " +
                      std::to_string(kMinPidsCeiling), "limits", "for a small exact limit use --pids");

  if (needs_cgroup(limits_, options_)) {
    if (auto r = setup_v2(layout, wanted); !r) return r;
    // v1 for what cgroup2 does not cover. With neither, a pids cgroup (no limit set) still
    // lets kill_all() find every process of the run.
    std::set<std::string> v1_wanted;
    for (const std::string& c : wanted)
      if (!v2_has(c)) v1_wanted.insert(c);
    if (!v2_.valid() && v1_wanted.empty()) v1_wanted.insert("pids");
    for (const std::string& c : v1_wanted)
      if (auto r = join_v1(layout, c); !r) return r;
  }

  if (limits_.memory_bytes)
    if (auto r = apply_memory(report("memory", format_size(*limits_.memory_bytes))); !r) return r;
  if (limits_.pids)
    if (auto r = apply_pids(report("pids", std::to_string(*limits_.pids))); !r) return r;
  if (ceiling_ != CeilingBy::None)
    apply_pids_ceiling(report("pids-ceiling", std::to_string(*limits_.pids_ceiling) + " (built-in)"));
  if (limits_.cpu)
    if (auto r = apply_cpu(report("cpu", format_cpu(*limits_.cpu))); !r) return r;
  if (limits_.timeout) {
    LimitReport& rep = report("timeout", format_duration(*limits_.timeout));
    if (options_.new_pid_namespace)
      rep.enforced_by = "SIGTERM, then SIGKILL to the sandbox's pid namespace";
    else if (v2_.valid() || !v1_.empty())
      rep.enforced_by = "SIGTERM, then SIGKILL to every process in the run's cgroup";
    else
      weaker(rep, "SIGTERM, then SIGKILL to the first process only",
             "no pid namespace and no cgroup: processes that left the tree may outlive the timeout");
  }
  if (limits_.tmp_size_bytes) report("tmp-size", format_size(*limits_.tmp_size_bytes)).enforced_by = "tmpfs size";
  // Always said: /dev/shm has a size whatever the flags (a default, at most --memory).
  report("shm-size", format_size(shm_size_for(limits_))).enforced_by =
      limits_.shm_size_bytes ? "tmpfs size" : "tmpfs size (default 64M, at most --memory)";
  if (limits_.home_size_bytes) report("home-size", format_size(*limits_.home_size_bytes)).enforced_by = "tmpfs size";
  if (limits_.max_file_size_bytes) {
    LimitReport& rep = report("max-file-size", format_size(*limits_.max_file_size_bytes));
    if (auto r = add_rlimit(RLIMIT_FSIZE, *limits_.max_file_size_bytes, "RLIMIT_FSIZE", rep); !r) return r;
  }
  if (limits_.max_open_files) {
    LimitReport& rep = report("max-open-files", std::to_string(*limits_.max_open_files));
    if (auto r = add_rlimit(RLIMIT_NOFILE, *limits_.max_open_files, "RLIMIT_NOFILE", rep); !r) return r;
  }
  if (!limits_.core_dumps) {
    LimitReport& rep = report("core-dumps", "off");
    if (auto r = add_rlimit(RLIMIT_CORE, 0, "RLIMIT_CORE", rep); !r) return r;
  }

  if (!unenforceable_.empty()) {
    std::string what;
    for (const std::string& u : unenforceable_) what += (what.empty() ? "" : "; ") + u;
    if (!v2_note_.empty()) what += "; " + v2_note_;
    if (!limits_.best_effort)
      return make_error("cannot enforce " + what, "limits",
                        "run as root, run inside a delegated cgroup (docs/limits.md" +
                            std::string(systemd_user_manager() ? "; here: systemd-run --user -p Delegate=yes --scope paddock run ..."
                                                               : "") +
                            "), or pass --best-effort-limits to run without these limits");
  }
  return ok_result();
}

Result<void> CgroupControl::add_rlimit(int resource, rlim_t value, const char* name,
                                       LimitReport& rep) {
  struct rlimit cur{};
  if (::getrlimit(resource, &cur) != 0) return errno_error(std::string("getrlimit ") + name);
  // Raising a hard limit needs CAP_SYS_RESOURCE in the initial user namespace, which the
  // sandbox never has: refuse rather than fail at exec time.
  if (cur.rlim_max != RLIM_INFINITY && value > cur.rlim_max) {
    if (!limits_.best_effort)
      return make_error(rep.name + " " + rep.requested + " is above this process's hard limit (" +
                            std::to_string(cur.rlim_max) + ")", "limits",
                        "raise the hard limit first (ulimit -H) or ask for less");
    value = cur.rlim_max;
    weaker(rep, std::string("rlimit ") + name, "capped at the hard limit " + std::to_string(value));
  }
  rlimits_.push_back(RlimitSpec{resource, {value, value}});
  if (rep.enforced_by.empty()) rep.enforced_by = std::string("rlimit ") + name;
  return ok_result();
}

Result<void> CgroupControl::apply_memory(LimitReport& rep) {
  const std::string bytes = std::to_string(*limits_.memory_bytes);
  if (v2_has("memory")) {
    if (auto r = v2_.write("memory.max", bytes); !r) return r;
    // RAM and swap together stay within the limit: no swap beyond it.
    if (v2_.has("memory.swap.max")) {
      if (auto r = v2_.write("memory.swap.max", "0"); !r) return r;
    } else if (host_has_swap()) {
      rep.weaker = true;
      warnings_.push_back("memory " + rep.requested + ": swap is not limited (no memory.swap.max)");
    }
    rep.enforced_by = "cgroup v2";
    return ok_result();
  }
  if (const CgroupDir* d = v1_for("memory")) {
    if (auto r = d->write("memory.limit_in_bytes", bytes); !r) return r;
    if (d->has("memory.memsw.limit_in_bytes")) {
      if (auto r = d->write("memory.memsw.limit_in_bytes", bytes); !r) return r;
    } else if (host_has_swap()) {
      rep.weaker = true;
      warnings_.push_back("memory " + rep.requested +
                          ": swap is not limited (kernel without swap accounting)");
    }
    rep.enforced_by = "cgroup v1";
    return ok_result();
  }
  // Fallback: a per-process cap on its data: heap and private writable mappings (RLIMIT_DATA
  // counts those since Linux 4.7). A real bound on each process, but not on the tree, and not
  // on shared memory. Unlike RLIMIT_AS it leaves address-space reservations alone (PROT_NONE),
  // so V8, the JVM and Go, which reserve far more than they use, still start.
  struct rlimit cur{};
  ::getrlimit(RLIMIT_DATA, &cur);
  rlim_t v = *limits_.memory_bytes;
  if (cur.rlim_max != RLIM_INFINITY && v > cur.rlim_max) v = cur.rlim_max;
  rlimits_.push_back(RlimitSpec{RLIMIT_DATA, {v, v}});
  weaker(rep, "rlimit RLIMIT_DATA",
         "no cgroup: RLIMIT_DATA caps each process's heap and private memory instead (not the whole tree, "
         "not shared memory)");
  return ok_result();
}

Result<void> CgroupControl::apply_pids(LimitReport& rep) {
  const std::string n = std::to_string(*limits_.pids);
  if (v2_has("pids")) {
    if (auto r = v2_.write("pids.max", n); !r) return r;
    rep.enforced_by = "cgroup v2";
    return ok_result();
  }
  if (const CgroupDir* d = v1_for("pids")) {
    if (auto r = d->write("pids.max", n); !r) return r;
    rep.enforced_by = "cgroup v1";
    return ok_result();
  }
  // Fallback: RLIMIT_NPROC. In a fresh user namespace it counts the sandbox's own tasks; without
  // one it counts every task of the real uid on the host, so add the ones that exist now.
  // It does not bind root (measured: not even inside a fresh user namespace).
  if (::geteuid() == 0) {
    rep.enforced_by = "not enforced";
    unenforceable_.push_back("pids " + rep.requested +
                             " (no writable cgroup with the pids controller; RLIMIT_NPROC does not bind root)");
    warnings_.push_back("pids " + rep.requested + ": not enforced (no cgroup)");
    return ok_result();
  }
  if (options_.new_user_namespace) {
    rlimits_.push_back(RlimitSpec{RLIMIT_NPROC, {*limits_.pids, *limits_.pids}});
    weaker(rep, "rlimit RLIMIT_NPROC",
           "no cgroup: tasks are capped by RLIMIT_NPROC in the sandbox's user namespace");
    return ok_result();
  }
  const std::uint64_t existing = tasks_of_uid(::getuid());
  rlim_t v = existing + *limits_.pids;
  struct rlimit cur{};
  ::getrlimit(RLIMIT_NPROC, &cur);
  if (cur.rlim_max != RLIM_INFINITY && v > cur.rlim_max) v = cur.rlim_max;
  rlimits_.push_back(RlimitSpec{RLIMIT_NPROC, {v, v}});
  weaker(rep, "rlimit RLIMIT_NPROC",
         "no cgroup: RLIMIT_NPROC counts all your processes on the host (" +
             std::to_string(existing) + " now, cap " + std::to_string(v) + ")");
  return ok_result();
}

// Never a reason to refuse a run: the ceiling is paddock's default, not the user's request.
void CgroupControl::apply_pids_ceiling(LimitReport& rep) {
  const std::uint64_t n = *limits_.pids_ceiling;
  switch (ceiling_) {
    case CeilingBy::PidMax:
      // pids 1..n are allocatable, so at most n tasks; once allocation has wrapped the kernel
      // skips pids below 300, so at least n - 300.
      pid_max_ = n + 1;
      rep.enforced_by = "pid namespace pid_max";
      return;
    case CeilingBy::Nproc:
      rlimits_.push_back(RlimitSpec{RLIMIT_NPROC, {n, n}});
      rep.enforced_by = "rlimit RLIMIT_NPROC";
      return;
    case CeilingBy::Cgroup:
      if (v2_has("pids") && v2_.write("pids.max", std::to_string(n))) {
        rep.enforced_by = "cgroup v2";
        return;
      }
      if (const CgroupDir* d = v1_for("pids"); d && d->write("pids.max", std::to_string(n))) {
        rep.enforced_by = "cgroup v1";
        return;
      }
      rep.enforced_by = "not enforced";
      warnings_.push_back("the built-in ceiling of " + std::to_string(n) +
                          " processes is not enforced here (no pid namespace of its own, no pids cgroup, and "
                          "RLIMIT_NPROC does not bind root); set one with --pids where a cgroup is available");
      return;
    case CeilingBy::None:
      return;
  }
}

Result<void> CgroupControl::apply_cpu(LimitReport& rep) {
  const double quota_d = std::ceil(*limits_.cpu * static_cast<double>(kCpuPeriodUs));
  const std::uint64_t quota = quota_d < 1000 ? 1000 : static_cast<std::uint64_t>(quota_d);
  if (v2_has("cpu")) {
    if (auto r = v2_.write("cpu.max", std::to_string(quota) + " " + std::to_string(kCpuPeriodUs)); !r)
      return r;
    rep.enforced_by = "cgroup v2";
    return ok_result();
  }
  if (const CgroupDir* d = v1_for("cpu")) {
    if (auto r = d->write("cpu.cfs_period_us", std::to_string(kCpuPeriodUs)); !r) return r;
    if (auto r = d->write("cpu.cfs_quota_us", std::to_string(quota)); !r) return r;
    rep.enforced_by = "cgroup v1";
    return ok_result();
  }
  // RLIMIT_CPU is total seconds per process, not a rate: no honest fallback.
  rep.enforced_by = "not enforced";
  unenforceable_.push_back("cpu " + rep.requested + " (no writable cgroup with the cpu controller)");
  warnings_.push_back("cpu " + rep.requested + ": not enforced (no cgroup)");
  return ok_result();
}

bool CgroupControl::kill_all() {
  bool any = false, ok = true;
  if (v2_.valid()) {
    any = true;
    ok = v2_.kill_all() && ok;
  }
  for (const CgroupDir& d : v1_) {
    any = true;
    ok = d.kill_all() && ok;
  }
  return any && ok;
}

void CgroupControl::finish(RunResult& result) {
  if (finished_) return;
  // Leftovers (daemons, when there was no pid namespace) die with the run.
  bool leftovers = !v2_.procs().empty();
  for (const CgroupDir& d : v1_) leftovers = leftovers || !d.procs().empty();
  if (leftovers) kill_all();
  collect(result);
  for (std::string& w : remove_cgroups()) result.warnings.push_back(std::move(w));
}

std::vector<std::string> CgroupControl::remove_cgroups() {
  std::vector<std::string> failed;
  auto remove = [&](CgroupDir& d) {
    const std::string path = d.path();
    if (!d.remove()) failed.push_back("could not remove cgroup " + path);
  };
  if (v2_.valid()) remove(v2_);
  for (CgroupDir& d : v1_) remove(d);
  return failed;
}

void CgroupControl::collect(RunResult& result) {
  if (finished_) return;
  finished_ = true;
  bool oom = false, memory_hit = false, pids_hit = false, cpu_hit = false;
  std::optional<std::uint64_t> peak, user_us, sys_us;
  // Each control file is read once (every read is a few microseconds of cgroupfs work).
  auto value = [](const std::optional<std::string>& text, std::string_view key) {
    return text ? key_value(*text, key) : std::nullopt;
  };
  if (v2_has("memory")) {
    const auto events = v2_.read("memory.events");
    oom = value(events, "oom_kill").value_or(0) > 0;
    memory_hit = oom || value(events, "max").value_or(0) > 0;
    peak = v2_.read_u64("memory.peak");
  } else if (const CgroupDir* d = v1_for("memory")) {
    const auto oom_kills = value(d->read("memory.oom_control"), "oom_kill");
    oom = oom_kills.value_or(0) > 0;
    const bool failed = d->read_u64("memory.failcnt").value_or(0) > 0 ||
                        d->read_u64("memory.memsw.failcnt").value_or(0) > 0;
    // Kernels without the oom_kill counter: a SIGKILL after hitting the limit is the OOM killer.
    if (!oom_kills && failed && result.status == RunResult::Status::Signaled && result.signal == SIGKILL)
      oom = true;
    memory_hit = oom || (limits_.memory_bytes && failed);
    peak = d->read_u64("memory.max_usage_in_bytes");
  }
  if (v2_has("pids")) pids_hit = v2_.read_key("pids.events", "max").value_or(0) > 0;
  else if (const CgroupDir* d = v1_for("pids")) pids_hit = d->read_key("pids.events", "max").value_or(0) > 0;
  const auto v2_cpu_stat = v2_.valid() ? v2_.read("cpu.stat") : std::nullopt;
  if (v2_has("cpu")) cpu_hit = value(v2_cpu_stat, "nr_throttled").value_or(0) > 0;
  else if (const CgroupDir* d = v1_for("cpu")) cpu_hit = d->read_key("cpu.stat", "nr_throttled").value_or(0) > 0;
  if (v2_.valid()) {
    user_us = value(v2_cpu_stat, "user_usec");
    sys_us = value(v2_cpu_stat, "system_usec");
  } else if (const CgroupDir* d = v1_for("cpuacct")) {
    if (auto u = d->read_u64("cpuacct.usage_user")) user_us = *u / 1000;
    if (auto s = d->read_u64("cpuacct.usage_sys")) sys_us = *s / 1000;
    if (!user_us || !sys_us) {
      const long hz = ::sysconf(_SC_CLK_TCK) > 0 ? ::sysconf(_SC_CLK_TCK) : 100;
      if (auto u = d->read_key("cpuacct.stat", "user")) user_us = *u * 1000000 / static_cast<std::uint64_t>(hz);
      if (auto s = d->read_key("cpuacct.stat", "system")) sys_us = *s * 1000000 / static_cast<std::uint64_t>(hz);
    }
  }

  if (oom) result.oom = true;
  if (peak) result.peak_memory_bytes = *peak;
  if (user_us && sys_us) {
    result.user_cpu_s = static_cast<double>(*user_us) / 1e6;
    result.sys_cpu_s = static_cast<double>(*sys_us) / 1e6;
  }
  for (LimitReport& rep : reports_) {
    if (rep.name == "memory") rep.hit = memory_hit || oom;
    else if (rep.name == "pids" || (rep.name == "pids-ceiling" && ceiling_ == CeilingBy::Cgroup))
      rep.hit = pids_hit;
    else if (rep.name == "cpu") rep.hit = cpu_hit;
    else if (rep.name == "timeout") rep.hit = result.timed_out;
    else if (rep.name == "max-file-size")
      rep.hit = result.status == RunResult::Status::Signaled && result.signal == SIGXFSZ;
  }
  result.limits = reports_;
  result.warnings.insert(result.warnings.end(), warnings_.begin(), warnings_.end());
}

std::string CgroupControl::describe() const {
  std::string out;
  if (v2_.valid()) {
    out = "cgroup2";
    std::string c;
    for (const std::string& x : {std::string("memory"), std::string("pids"), std::string("cpu")})
      if (v2_ctrls_.count(x)) c += (c.empty() ? "" : ",") + x;
    out += c.empty() ? " (kill, cpu time)" : " " + c;
  }
  if (!v1_index_.empty()) {
    std::string c;
    for (const auto& [ctrl, idx] : v1_index_) c += (c.empty() ? "" : ",") + ctrl;
    out += (out.empty() ? "" : " + ") + std::string("cgroup v1 ") + c;
  }
  for (const RlimitSpec& r : rlimits_) {
    if (r.resource == RLIMIT_DATA || r.resource == RLIMIT_NPROC) {
      out += (out.empty() ? "" : " + ") + std::string("rlimit fallback");
      break;
    }
  }
  return out.empty() ? "rlimits only" : out;
}

}  // namespace

bool pid_namespace_pid_max() {
  // Neither the kernel nor our /proc mount changes while we run (the MCP server asks per call).
  static const bool answer = [] {
    struct utsname u{};
    if (::uname(&u) != 0) return false;
    unsigned major = 0, minor = 0;
    if (std::sscanf(u.release, "%u.%u", &major, &minor) != 2) return false;
    if (major < 6 || (major == 6 && minor < 14)) return false;
    struct statvfs sv{};
    return ::statvfs("/proc/sys/kernel", &sv) == 0 && (sv.f_flag & ST_RDONLY) == 0;
  }();
  return answer;
}

Result<std::unique_ptr<ResourceControl>> create_resource_control(const Limits& limits,
                                                                 const CgroupLayout& layout,
                                                                 const ResourceOptions& options) {
  auto rc = std::make_unique<CgroupControl>(limits, options);
  if (auto r = rc->plan(layout); !r) return std::move(r).take_error();  // dtor removes cgroups
  return std::unique_ptr<ResourceControl>(std::move(rc));
}

Result<std::unique_ptr<ResourceControl>> create_resource_control(const Limits& limits,
                                                                 const Features&,
                                                                 const ResourceOptions& options) {
  // Reading mountinfo and /proc/self/cgroup is paid only by runs that make a cgroup. The others
  // still sweep what a SIGKILLed paddock left in their cgroup2 cgroup, found the cheap way.
  if (!needs_cgroup(limits, options)) {
    if (const std::string own = cgroup2_own_dir_quick(); !own.empty())
      sweep_stale_cgroups(cgroup2_run_parent(own, ::getpid()));
    return create_resource_control(limits, CgroupLayout{}, options);
  }
  auto layout = discover_cgroup_layout();
  if (!layout.ok()) return std::move(layout).take_error();
  return create_resource_control(limits, *layout, options);
}

}  // namespace paddock::engine
