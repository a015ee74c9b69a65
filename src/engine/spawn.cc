// start(): plan in the parent, clone, and hand back an Execution whose wait() runs the monitor.
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "engine/child.h"
#include "engine/deferred_cleanup.h"
#include "engine/fallback_broker.h"
#include "engine/fallback_init.h"
#include "engine/monitor.h"
#include "engine/plan_builder.h"
#include "engine/pty.h"
#include "engine/seccomp_policy.h"
#include "supervisor/denial.h"
#include "net/proxy_env.h"
#include "paddock/features.h"
#include "paddock/sandbox.h"
#include "paddock/why.h"
#include "policy/command_grant.h"
#include "policy/policy_json.h"
#include "sys/syscalls.h"

extern char** environ;

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

namespace paddock {

CancelToken::CancelToken() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
CancelToken::~CancelToken() {
  if (fd_ >= 0) close(fd_);
}
void CancelToken::cancel() {
  std::uint64_t one = 1;
  if (write(fd_, &one, sizeof(one)) < 0) {
  }
}
bool CancelToken::cancelled() const {
  pollfd p = {fd_, POLLIN, 0};
  return poll(&p, 1, 0) == 1;
}

namespace engine {
namespace {

// User namespaces are tried, not probed; a failure is remembered for the process's lifetime.
// PADDOCK_DANGER_DISABLE_NAMESPACES=1 forces the Landlock + seccomp fallback (for tests, and for
// users who want to see what their Ubuntu colleagues get); paddock says so on every run.
std::atomic<int> g_userns_broken{namespaces_disabled_by_env() ? 1 : 0};

int move_high(int fd) {
  if (fd < 0) return fd;
  int n = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return n;
}

// Looks argv[0] up in the sandbox's PATH, preferring a candidate the sandbox can see. When only
// invisible ones exist (e.g. ~/.local/bin under the fresh HOME), returns the first so the error
// names it; *visible tells which case it is.
std::string find_in_path(const std::string& cmd, const std::vector<std::string>& env, const Policy& policy,
                         bool* visible) {
  const std::shared_ptr<FsView> fs = real_fs();
  auto sees = [&](const std::string& p) { return explain_path(policy, p, Op::Exec, *fs).allowed; };
  const std::string& cwd = policy.cwd;
  if (cmd.find('/') != std::string::npos) {
    std::string p = cmd[0] == '/' ? cmd : cwd + "/" + cmd;
    *visible = sees(p);
    return p;
  }
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& e : env)
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  std::string first_hidden;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = cwd;
    std::string cand = dir + "/" + cmd;
    struct stat st;
    if (stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(cand.c_str(), X_OK) == 0) {
      if (sees(cand)) {
        *visible = true;
        return cand;
      }
      if (first_hidden.empty()) first_hidden = cand;
    }
    start = end + 1;
  }
  *visible = false;
  return first_hidden;
}

void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::string prefix = name + "=";
  for (std::string& e : env)
    if (e.rfind(prefix, 0) == 0) {
      e = prefix + value;
      return;
    }
  env.push_back(prefix + value);
}

bool is_namespace_failure(const ChildMessage& m) {
  if (m.type != ChildMessage::SetupError) return false;
  std::string step = m.step;
  bool early = step == "uid map" || step == "gid map" || step == "setgroups" || step == "make mounts private" ||
               step == "mount scratch tmpfs" || step == "mount proc" ||
               // What a container's seccomp profile refuses inside a user namespace (the same
               // calls features.cc's probe tries; docs/scale.md#containers).
               step == "sethostname" || step == "mount_setattr" || step == "pivot_root" ||
               step == "detach host root" || step == "cgroup namespace";
  return early && (m.err == EPERM || m.err == EACCES);
}

}  // namespace

std::vector<std::string> current_environment(const RunOptions& opts) {
  if (opts.host_env) return *opts.host_env;
  std::vector<std::string> v;
  for (char** e = environ; e && *e; ++e) v.emplace_back(*e);
  return v;
}

// Everything but stdio and the pipes: the filesystem, Landlock, seccomp, argv/envp, limits.
Result<void> make_plan(Launch& launch, Plan& plan, bool ns, const std::vector<std::string>& host_env) {
  const Policy& policy = *launch.policy;
  const RunOptions& opts = launch.opts;
  const Features& feat = quick_host_features();
  plan.namespaces = ns;
  {
    ResourceOptions ro;
    ro.new_user_namespace = ns;
    ro.new_pid_namespace = ns && !plan.exec_in_place;
    ro.pid_namespace_pid_max = ro.new_pid_namespace && pid_namespace_pid_max();
    launch.resources.reset();
    auto rc = create_resource_control(policy.limits, feat, ro);
    if (!rc) return std::move(rc).take_error();
    launch.resources = std::move(rc.value());
  }
  std::vector<std::string> env = sandbox_environment(policy, host_env);
  for (const std::string& e : env) {
    if (e.rfind("PATH=", 0) == 0) launch.search_path = e.substr(5);
  }
  FsPlanInputs fin;
  fin.landlock_abi = feat.landlock_abi;
  fin.namespaces = ns;
  fin.extra_mounts = opts.mounts;
  if (ns) fin.checkpoint_socket = opts.checkpoint_socket;
  if (ns && !plan.exec_in_place) {
    // The session's denials for `paddock why --self --denials` inside: a file in a private
    // directory, bound read-only into the sandbox; the DenialLog's listener appends to it.
    char tmpl[] = "/tmp/paddock-denials-XXXXXX";
    if (!mkdtemp(tmpl)) return errno_error("mkdtemp", errno, "/tmp");
    launch.denials_dir = tmpl;
    fin.denials_file = launch.denials_dir + "/denials.jsonl";
    launch.denials_fd.reset(
        open(fin.denials_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (!launch.denials_fd) return errno_error("create the denials record", errno, fin.denials_file);
  }
  std::string policy_json = opts.expose_policy ? policy_json_text(policy) + "\n" : "";
  if (ns) {
    fin.policy_json = policy_json;
  } else {
    char tmpl[] = "/tmp/paddock-XXXXXX";
    if (!mkdtemp(tmpl)) return errno_error("mkdtemp", errno, "/tmp");
    launch.fallback_dir = tmpl;
    fin.fallback_home = launch.fallback_dir + "/home";
    fin.fallback_tmp = launch.fallback_dir + "/tmp";
    mkdir(fin.fallback_home.c_str(), 0700);
    mkdir(fin.fallback_tmp.c_str(), 0700);
    set_env(env, "HOME", fin.fallback_home);
    set_env(env, "TMPDIR", fin.fallback_tmp);
    if (opts.expose_policy) {
      fin.fallback_policy_file = launch.fallback_dir + "/policy.json";
      FILE* f = fopen(fin.fallback_policy_file.c_str(), "we");
      if (!f) return errno_error("write policy file", errno, fin.fallback_policy_file);
      fwrite(policy_json.data(), 1, policy_json.size(), f);
      fclose(f);
      set_env(env, "PADDOCK_POLICY", fin.fallback_policy_file);
    }
  }
  std::vector<std::string> env_warnings;
  if (launch.egress) {
    fin.resolv_conf = launch.egress->resolv_conf();
    auto proxy = net::proxy_environment(launch.egress->environment(), env);
    for (auto& [k, v] : proxy.set) set_env(env, k, v);
    env_warnings = std::move(proxy.warnings);
    plan.listeners = launch.egress->listeners();
  }
  if (opts.cwd) set_env(env, "PWD", *opts.cwd);
  std::sort(env.begin(), env.end());
  auto fs = plan_filesystem(policy, fin);
  if (!fs) return std::move(fs).take_error();
  if (ns && opts.expose_policy) set_env(env, "PADDOCK_POLICY", fs->policy_file);
  if (!fs->denials_file.empty()) set_env(env, "PADDOCK_DENIALS", fs->denials_file);
  plan.mounts = std::move(fs->mounts);
  plan.remount_ro_at_end = std::move(fs->remount_ro_at_end);
  plan.landlock = std::move(fs->landlock);
  launch.scratch_home = ns && !plan.exec_in_place ? fs->scratch_home : std::string();
  launch.scratch_setup = std::move(fs->scratch_setup);
  launch.warnings = fs->warnings;
  launch.warnings.insert(launch.warnings.end(), env_warnings.begin(), env_warnings.end());
  launch.isolation_gaps.clear();
  if (!ns) {
    // Every protection the fallback lacks, one line each, ahead of the other warnings.
    launch.isolation_gaps = fallback_gaps(policy, feat, plan.exec_in_place);
    std::vector<std::string> lines = {
        "user namespaces unavailable: running with Landlock + seccomp only, which lacks the following; "
        "--require-namespaces or a profile's [sandbox] require_namespaces = true refuses instead"};
    for (const IsolationGap& g : launch.isolation_gaps) lines.push_back("fallback: " + gap_line(g));
    launch.warnings.insert(launch.warnings.begin(), lines.begin(), lines.end());
  }
  // The network's isolation, one decision for the seccomp rule and the clone flags below.
  const NetIsolation net = net_isolation(policy.network.mode, ns);
  if (feat.seccomp_filter) {
    // The denylist's refusals are counted by name where a paddock remains to answer them and the
    // task's one listener is free: with namespaces (the fallback's broker holds its listener) and
    // without --exec. Elsewhere the same list refuses in BPF alone, uncounted.
    launch.denylist_notify = ns && !plan.exec_in_place && feat.seccomp_user_notif;
    launch.seccomp_options = {net.deny_inet_sockets, launch.denylist_notify};
    auto prog = seccomp_program(launch.seccomp_options);
    plan.seccomp.assign(prog.begin(), prog.end());
  }
  // Without namespaces: no unix sockets by path, and metadata changes brokered (fallback_broker.h).
  // With --exec no paddock remains to answer them: they pass, and the user is told.
  if (feat.seccomp_filter && !ns) {
    plan.broker_seccomp = broker_filter(!plan.exec_in_place);  // with --exec: fallback_gaps() says so
  }

  plan.cwd = opts.cwd ? *opts.cwd : policy.cwd;
  plan.hostname = ns ? "paddock" : "";
  plan.fallback_subreaper = !ns && !plan.exec_in_place;
  if (plan.fallback_subreaper) {
    plan.parent_pid = getpid();
    plan.sweep_signal = fallback_sweep_signal();
  }
  launch.sweep_signal = plan.sweep_signal;
  plan.clone_flags = ns ? (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS) : 0;
  if (net.new_netns) plan.clone_flags |= CLONE_NEWNET;
  plan.loopback_up = net.loopback_up;
  plan.new_cgroup_ns = ns;
  unsigned uid = launch.uid, gid = launch.gid;
  plan.uid_map = std::to_string(uid) + " " + std::to_string(uid) + " 1\n";
  plan.gid_map = std::to_string(gid) + " " + std::to_string(gid) + " 1\n";
  bool visible = false;
  plan.exec_path = find_in_path(opts.argv[0], env, policy, &visible);
  if (!plan.exec_path.empty() && !visible) {
    launch.hidden_command = plan.exec_path;
    launch.hidden_command_grant = command_grant_flags(plan.exec_path, policy.home, *real_fs());
  }
  plan.argv_storage = opts.argv;
  plan.envp_storage = env;
  plan.finalize_exec_arrays();
  // The child joins its cgroups itself: all of them with --exec (no parent left to attach it),
  // else the v1 "tasks" files only (cgroup2 is joined at birth or by the parent's attach()).
  plan.cgroup_attach_fds = plan.exec_in_place ? launch.resources->attach_fds() : launch.resources->self_attach_fds();
  plan.rlimits = launch.resources->rlimits();
  if (ns) {
    plan.cgroup_leave_fds = launch.resources->leave_fds();
    std::sort(plan.cgroup_leave_fds.begin(), plan.cgroup_leave_fds.end());
  }
  if (std::uint64_t m = launch.resources->pid_max()) plan.pid_max = std::to_string(m);
  for (int fd : opts.pass_fds) plan.keep_fds.push_back(fd);
  launch.exec_path = plan.exec_path;
  launch.isolation = std::string(ns ? "namespaces" : "") +
                     (plan.landlock.abi > 0
                          ? std::string(ns ? "+" : "") + "landlock(ABI " + std::to_string(plan.landlock.abi) + ")"
                          : "") +
                     (plan.seccomp.empty() ? "" : "+seccomp");
  launch.namespaces = ns;
  return {};
}

Result<std::unique_ptr<Launch>> prepare(const Policy& policy, const RunOptions& opts) {
  if (opts.argv.empty()) return make_error("no command given", "run");
  auto launch = std::make_unique<Launch>();
  launch->policy_copy = policy;
  launch->policy = &launch->policy_copy;
  launch->opts = opts;
  // Each denial line goes to the session's record (read-only inside, once a namespace run binds
  // it) and to the caller's callback.
  launch->denials->set_listener([l = launch.get(), user = opts.on_denial](const Denial& d) {
    if (l->denials_fd) {
      std::string text = supervisor::to_json(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      (void)!::write(l->denials_fd.get(), text.data(), text.size());
    }
    if (user) user(d);
  });
  launch->start_time = std::chrono::steady_clock::now();
  launch->uid = getuid();
  launch->gid = getgid();
  launch->watch = gate::Check::before_run(policy, opts.mounts, opts.state_dir);
  if (policy.network.mode == NetMode::Filtered) {
    launch->egress_options.resolve = opts.test_resolve;
    // Every refusal also goes to the session's denials, as it happens.
    launch->egress_options.on_decision = [denials = launch->denials.get(),
                                          user = opts.on_network_decision](const NetworkDecision& d) {
      if (!d.allowed) denials->record(supervisor::from_network(d));
      if (user) user(d);
    };
    auto ef = net::create_egress_filter(policy.network, launch->egress_options);
    if (!ef) return std::move(ef).take_error();
    launch->egress = std::move(ef.value());
  }
  return launch;
}

Result<void> check_mode(const Policy& policy, bool ns) {
  if (!ns && policy.require_namespaces)
    return make_error("refusing to run without user namespaces, which are unavailable here: the policy requires "
                      "them (--require-namespaces, or [sandbox] require_namespaces = true in the profile)",
                      "namespaces", "`paddock doctor` says why they are unavailable and what the fallback would lack");
  if (!ns && policy.network.mode == NetMode::Filtered)
    return make_error("a domain allowlist needs user namespaces, which are unavailable here", "network");
  return {};
}

Result<std::unique_ptr<Execution>> start_impl(const Policy& policy, const RunOptions& opts) {
  reap_detached();
  auto prepared = prepare(policy, opts);
  if (!prepared) return std::move(prepared).take_error();
  std::unique_ptr<Launch> launch = std::move(prepared.value());
  const Features& feat = quick_host_features();
  const std::vector<std::string> host_env = current_environment(opts);

  // Signals paddock forwards are blocked from before clone, so one that arrives while the sandbox
  // starts is forwarded by wait() rather than killing paddock (the child unblocks them).
  if (opts.stdio == RunOptions::Stdio::Inherit && opts.forward_signals) {
    sigset_t fwd;
    sigemptyset(&fwd);
    for (int sg : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH}) sigaddset(&fwd, sg);
    pthread_sigmask(SIG_BLOCK, &fwd, &launch->old_sigmask);
    launch->sig_blocked = true;
  }
  bool try_namespaces = g_userns_broken.load() == 0;
  for (;;) {
    bool ns = try_namespaces;
    if (auto r = check_mode(policy, ns); !r) return std::move(r).take_error();
    Plan plan;
    if (auto r = make_plan(*launch, plan, ns, host_env); !r) return std::move(r).take_error();
    if (auto r = setup_stdio(*launch, plan); !r) return std::move(r).take_error();
    // Cgroups: the child moves itself into the v1 hierarchies first thing, through their
    // "tasks" files (plan.cgroup_attach_fds; no global lock, so no wait). cgroup2 it joins at
    // birth (CLONE_INTO_CGROUP) or else through the parent's attach() while it builds its
    // mounts; either way it waits for the parent's word before the command may start.
    const int into = launch->resources->clone_into_fd();
    sys::UniqueFd attach_go, attach_wait;
    if (into >= 0) {
      int ap[2];
      if (pipe2(ap, O_CLOEXEC) < 0) return errno_error("pipe", errno, "run");
      attach_wait.reset(move_high(ap[0]));
      attach_go.reset(ap[1]);
      plan.attach_wait_fd = attach_wait.get();
    }

    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) return errno_error("pipe", errno, "run");
    launch->report.reset(report[0]);
    plan.report_fd = move_high(report[1]);
    sys::UniqueFd report_w(plan.report_fd);
    sys::UniqueFd net_parent, net_child;
    if (!plan.listeners.empty()) {
      int sp[2];
      if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return errno_error("socketpair", errno, "run");
      net_parent.reset(sp[0]);
      net_child.reset(move_high(sp[1]));
      plan.net_fd = net_child.get();
    }

    sys::UniqueFd scratch_child;
    if (ns && !launch->scratch_home.empty()) {
      int sp[2];
      if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return errno_error("socketpair", errno, "run");
      launch->scratch_sock.reset(sp[0]);
      scratch_child.reset(move_high(sp[1]));
      plan.discard_sock = scratch_child.get();
      plan.discard_root = std::string(kNewRoot) + launch->scratch_home;
    }
    sys::UniqueFd denylist_parent, denylist_child;
    if (launch->denylist_notify) {
      int sp[2];
      if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return errno_error("socketpair", errno, "run");
      denylist_parent.reset(sp[0]);
      denylist_child.reset(move_high(sp[1]));
      plan.denylist_fd = denylist_child.get();
    }

    sys::UniqueFd broker_parent, broker_child;
    if (!plan.broker_seccomp.empty()) {
      int sp[2];
      if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return errno_error("socketpair", errno, "run");
      broker_parent.reset(sp[0]);
      broker_child.reset(move_high(sp[1]));
      plan.broker_fd = broker_child.get();
    }

    int pidfd = -1;
    sys::Clone3Args args = {};
    args.flags = plan.clone_flags | CLONE_PIDFD;
    args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
    args.exit_signal = SIGCHLD;
    // Born in the run's cgroup2 cgroup: no migration (Linux 5.7+; else attach() moves it).
    long pid = -1;
    if (feat.clone3 && into >= 0) {
      sys::Clone3Args into_args = args;
      into_args.flags |= CLONE_INTO_CGROUP;
      into_args.cgroup = static_cast<std::uint64_t>(into);
      pid = sys::clone3(&into_args);
      if (pid > 0) launch->resources->born_in_cgroup();
    }
    if (pid < 0) pid = feat.clone3 ? sys::clone3(&args) : -1;
    if (pid < 0 && (!feat.clone3 || errno == ENOSYS)) pid = sys::clone_fork(plan.clone_flags | CLONE_PIDFD, &pidfd);
    if (pid == 0) child_main(plan);  // never returns
    if (pid < 0) {
      int e = errno;
      launch->close_child_side();
      if (ns && (e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS || e == EACCES)) {
        g_userns_broken = 1;
        try_namespaces = false;
        launch->reset_for_retry();
        continue;
      }
      return errno_error("clone", e, "run");
    }
    launch->child_pid = static_cast<pid_t>(pid);
    launch->pidfd.reset(pidfd >= 0 ? pidfd : sys::pidfd_open(launch->child_pid, 0));
    launch->close_child_side();
    report_w.reset();
    net_child.reset();
    scratch_child.reset();
    broker_child.reset();
    denylist_child.reset();
    attach_wait.reset();
    if (attach_go) {
      if (auto r = launch->resources->attach(launch->child_pid); !r) {
        attach_go.reset();  // the child sees EOF and stops; wait() reports its setup error
        return std::move(r).take_error();
      }
      if (write(attach_go.get(), "1", 1) != 1) return errno_error("attach", errno, "run");
      attach_go.reset();
    }
    launch->resources->started(launch->child_pid);
    if (denylist_parent) {
      // The listener comes once the child has its filter; without it (the child failed first)
      // nobody listens and every denylisted call fails with ENOSYS: still refused.
      auto fds = receive_fds(denylist_parent.get(), 1);
      if (fds.size() == 1) {
        auto s = DenylistSupervisor::start(std::move(fds[0]), launch->seccomp_options, launch->denials.get());
        if (!s) return std::move(s).take_error();
        launch->denylist = std::move(*s);
      }
    }
    if (broker_parent) {
      // The listener comes once the child has its filters; without it (the child failed first)
      // nobody listens and the brokered calls fail with ENOSYS: closed, not open.
      auto fds = receive_fds(broker_parent.get(), 1);
      if (fds.size() == 1) {
        auto b = MetadataBroker::start(std::move(fds[0]),
                                       broker_policy(policy, {launch->fallback_dir + "/home", launch->fallback_dir + "/tmp"}));
        if (!b) return std::move(b).take_error();
        launch->broker = std::move(*b);
      }
    }

    if (net_parent) {
      auto fds = receive_fds(net_parent.get(), plan.listeners.size());
      if (fds.size() == plan.listeners.size()) {
        if (auto r = launch->egress->serve(std::move(fds)); !r) return std::move(r).take_error();
      }
    }
    launch->receive_pty();
    // Wait until the sandbox is built (Started) or failed; a user namespace that turns out to be
    // unusable (AppArmor's restriction, some containers) falls back like one that cannot be made.
    ChildMessage first;
    bool got = launch->read_message(first);
    if (got && ns && is_namespace_failure(first) && !policy.require_namespaces) {
      launch->reap();
      g_userns_broken = 1;
      try_namespaces = false;
      launch->reset_for_retry();
      continue;
    }
    if (got) launch->pending.push_back(first);
    return std::unique_ptr<Execution>(std::move(launch));
  }
}

Result<void> exec_in_place_impl(const Policy& policy, const RunOptions& opts) {
  auto prepared = prepare(policy, opts);
  if (!prepared) return std::move(prepared).take_error();
  std::unique_ptr<Launch> launch = std::move(prepared.value());
  if (launch->egress) return make_error("--exec cannot be combined with a domain allowlist", "run");
  bool ns = g_userns_broken.load() == 0;
  // Try the namespaces now, in this process: no pid namespace (the command keeps our pid).
  // The network namespace as make_plan() decides it with namespaces (net_isolation); if they
  // cannot be made, make_plan() decides the fallback's socket rule instead.
  if (ns && unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
                    (net_isolation(policy.network.mode, true).new_netns ? CLONE_NEWNET : 0)) < 0)
    ns = false;
  if (auto r = check_mode(policy, ns); !r) return std::move(r).take_error();
  static Plan plan;  // lives until exec
  plan.exec_in_place = true;
  if (auto r = make_plan(*launch, plan, ns, current_environment(opts)); !r) return std::move(r).take_error();
  plan.clone_flags = 0;
  plan.new_cgroup_ns = false;
  for (MountOp& op : plan.mounts) {
    if (op.kind == MountOp::Kind::Proc) {
      // No pid namespace of our own: show the host's /proc read-only.
      op.kind = MountOp::Kind::Bind;
      op.src = std::string(kOldRoot) + "/proc";
      op.readonly = true;
    }
  }
  plan.report_fd = 2;
  for (const auto& w : launch->warnings) std::fprintf(stderr, "[paddock] warning: %s\n", w.c_str());
  std::fflush(stderr);
  launch->fallback_dir.clear();  // the command owns it now
  launch.release();              // nothing to clean up after exec
  child_main(plan);
}

}  // namespace engine

Result<std::unique_ptr<Execution>> start(const Policy& policy, const RunOptions& options) {
  return engine::start_impl(policy, options);
}

Result<void> exec_in_place(const Policy& policy, const RunOptions& options) {
  return engine::exec_in_place_impl(policy, options);
}

void wait_background_cleanup() { engine::wait_for_background_cleanup(); }

Result<RunResult> run(const Policy& policy, const RunOptions& options) {
  auto ex = start(policy, options);
  if (!ex) return std::move(ex).take_error();
  return ex.value()->wait();
}

Result<RunResult> run_capture(const Policy& policy, RunOptions options) {
  options.stdio = RunOptions::Stdio::Capture;
  return run(policy, options);
}

}  // namespace paddock
