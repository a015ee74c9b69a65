// The Jail backends: native (paddock's engine), bubblewrap and systemd-run (rendered from the
// same Policy). docs/jails.md#backends says what each one guarantees.
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "engine/plan_builder.h"
#include "jail/process.h"
#include "paddock/jail_backend.h"
#include "sys/display.h"

extern char** environ;

namespace paddock::jail {
namespace {

std::vector<std::string> process_env() {
  std::vector<std::string> env;
  for (char** p = environ; *p; ++p) env.emplace_back(*p);
  return env;
}

void set(std::vector<std::string>& env, const std::string& kv) {
  const std::string name = kv.substr(0, kv.find('=') + 1);
  for (auto& e : env)
    if (e.compare(0, name.size(), name) == 0) {
      e = kv;
      return;
    }
  env.push_back(kv);
}

// The environment the command gets: the policy's (safe set, passes, sets) plus OPTS.env.
std::vector<std::string> command_env(const Policy& policy, const RunOpts& opts) {
  std::vector<std::string> env = sandbox_environment(policy, opts.host_env ? *opts.host_env : process_env());
  for (const auto& kv : opts.env) set(env, kv);
  return env;
}

class RealRunner : public CommandRunner {
 public:
  Result<Output> run(const Command& c, bool capture) override {
    for (const auto& f : c.files) {
      int fd = ::open(f.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) return errno_error("cannot create", errno, f.path);
      bool ok = ::write(fd, f.content.data(), f.content.size()) == static_cast<ssize_t>(f.content.size());
      ::close(fd);
      if (!ok) return errno_error("cannot write", errno, f.path);
    }
    struct Remove {
      const Command& c;
      ~Remove() {
        for (const auto& f : c.files) ::unlink(f.path.c_str());
      }
    } remove{c};
    if (capture) {
      auto r = run_process(c.argv, "", c.env, /*replace_env=*/true);
      if (!r) return std::move(r).take_error();
      if (!r->err.empty()) (void)!::write(2, r->err.data(), r->err.size());
      return Output{r->status, std::move(r->out)};
    }
    std::vector<std::string> argv = c.argv, env = c.env;
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : env) e.push_back(s.data());
    e.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawnp(&pid, a[0], nullptr, nullptr, a.data(), e.data());
    if (rc != 0) return errno_error("cannot run " + argv[0], rc);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return Output{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), {}};
  }
};

// ---- native ---------------------------------------------------------------------------------

class NativeJail : public Jail {
 public:
  std::string_view name() const override { return "native"; }
  Result<Command> render(const Policy& policy, const RunOpts& opts) const override {
    Command c;
    c.argv = opts.command;
    c.env = command_env(policy, opts);
    return c;
  }
  std::vector<std::string> missing_guarantees(const Policy&) const override { return {}; }
  Result<int> run(const Policy& policy, const RunOpts& opts) override {
    auto r = go(policy, opts, false);
    if (!r) return std::move(r).take_error();
    return r->shell_code();
  }
  Result<std::string> run_capture(const Policy& policy, const RunOpts& opts) override {
    auto r = go(policy, opts, true);
    if (!r) return std::move(r).take_error();
    return std::move(r->stdout_data);
  }

 private:
  // Secrets reach the command through the host environment it is built from, by name: their
  // values are never in the Policy (nor in the policy file the sandbox can read).
  static Result<RunResult> go(const Policy& policy, const RunOpts& opts, bool capture) {
    Policy p = policy;
    std::vector<std::string> host = opts.host_env ? *opts.host_env : process_env();
    for (const auto& kv : opts.env) {
      auto eq = kv.find('=');
      if (eq == std::string::npos) continue;
      p.env.set.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    for (const auto& [name, value] : opts.secrets) {
      set(host, name + "=" + value);
      p.env.pass.push_back(name);
    }
    RunOptions ro;
    ro.argv = opts.command;
    ro.host_env = std::move(host);
    ro.pty = false;
    if (!opts.workspace.home_dir.empty()) ro.mounts.push_back({p.home, opts.workspace.home_dir, Access::ReadWrite, 0, {}, {}});
    ro.mounts.insert(ro.mounts.end(), opts.workspace.mounts.begin(), opts.workspace.mounts.end());
    if (capture) return paddock::run_capture(p, std::move(ro));
    return paddock::run(p, ro);
  }
};

// ---- bubblewrap -----------------------------------------------------------------------------

struct Step {
  std::string path;
  int order;
  std::vector<std::string> args;
};

class BubblewrapJail : public Jail {
 public:
  explicit BubblewrapJail(std::shared_ptr<CommandRunner> r) : runner_(std::move(r)) {}
  std::string_view name() const override { return "bubblewrap"; }

  Result<Command> render(const Policy& policy, const RunOpts& opts) const override {
    if (policy.network.mode == NetMode::Filtered)
      return make_error("bubblewrap cannot filter the network by host name", "--backend bubblewrap",
                        "use --backend native for --allow-domain, or --allow-net / no network");
    std::vector<std::string> argv = {"bwrap", "--die-with-parent", "--unshare-user", "--unshare-ipc", "--unshare-pid",
                                     "--unshare-uts", "--unshare-cgroup-try", "--hostname", "paddock"};
    if (policy.network.mode != NetMode::Host) argv.push_back("--unshare-net");
    std::vector<Step> steps;
    bool home_rule = false, tmp_rule = false;
    for (const PathRule& r : policy.paths) {
      if (r.path == policy.home) home_rule = true;
      if (r.path == "/tmp") tmp_rule = true;
      if (!r.symlink_target.empty()) {
        std::string target = r.symlink_target;
        if (r.origin.kind == Origin::Kind::BuiltIn) {
          char buf[PATH_MAX];
          ssize_t n = readlink(r.path.c_str(), buf, sizeof(buf) - 1);
          if (n > 0) target.assign(buf, static_cast<std::size_t>(n));
        }
        steps.push_back({r.path, 1, {"--symlink", target, r.path}});
        continue;
      }
      const bool w = grants(r.access, Access::Write);
      std::string flag = w ? "--bind" : "--ro-bind";
      if (r.optional) flag += "-try";
      steps.push_back({r.path, 1, {flag, r.path, r.path}});
    }
    const bool home_mount = !opts.workspace.home_dir.empty();
    if (home_mount) {
      steps.push_back({policy.home, 1, {"--bind", opts.workspace.home_dir, policy.home}});
    } else if (!home_rule) {
      steps.push_back({policy.home, 0, {"--perms", "0700", "--tmpfs", policy.home}});
    }
    if (!tmp_rule) steps.push_back({"/tmp", 0, {"--tmpfs", "/tmp"}});
    steps.push_back({"/dev", 0, {"--dev", "/dev"}});
    steps.push_back({"/proc", 0, {"--proc", "/proc"}});
    for (const SandboxMount& m : opts.workspace.mounts) {
      // bwrap's --overlay came with 0.9; Debian 12 ships 0.8.
      if (!m.overlay_upper.empty())
        return make_error("bubblewrap cannot mount an overlay workspace", m.sandbox_path,
                          "use --backend native for an overlay jail");
      else
        steps.push_back({m.sandbox_path, 2, {grants(m.access, Access::Write) ? "--bind" : "--ro-bind", m.host_path, m.sandbox_path}});
    }
    for (const DeniedPath& d : policy.denied) {
      struct stat st;
      if (lstat(d.path.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode))
        steps.push_back({d.path, 3, {"--perms", "0000", "--tmpfs", d.path, "--remount-ro", d.path}});
      else
        steps.push_back({d.path, 3, {"--ro-bind", "/dev/null", d.path}});
    }
    for (const ProtectedPath& p : policy.protected_paths) {
      struct stat st;
      if (!p.exists || lstat(p.path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      steps.push_back({p.path, 4, {"--ro-bind", p.path, p.path}});
    }
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
      if (a.path != b.path) return engine::path_component_less(a.path, b.path);
      return a.order < b.order;
    });
    for (auto& s : steps) argv.insert(argv.end(), s.args.begin(), s.args.end());
    argv.insert(argv.end(), {"--chdir", opts.workspace.path.empty() ? policy.cwd : opts.workspace.path, "--"});
    argv.insert(argv.end(), opts.command.begin(), opts.command.end());
    Command c;
    c.argv = std::move(argv);
    // bwrap passes its own environment on: the command's, secrets included, never as arguments.
    c.env = command_env(policy, opts);
    for (const auto& [name, value] : opts.secrets) set(c.env, name + "=" + value);
    return c;
  }

  std::vector<std::string> missing_guarantees(const Policy& policy) const override {
    std::vector<std::string> m = {
        "Landlock (the second filesystem layer)",
        "seccomp denylist (bwrap loads none)",
        "resource limits and the process ceiling (no cgroups, no rlimits)",
        "the checks after the run (git control files, agent configs left behind)",
        "the private /dev/shm size and the pty relay",
    };
    if (policy.network.mode == NetMode::Filtered) m.push_back("egress filter (--allow-domain)");
    return m;
  }
  Result<int> run(const Policy& policy, const RunOpts& opts) override {
    auto c = render(policy, opts);
    if (!c) return std::move(c).take_error();
    auto r = runner_->run(*c, false);
    if (!r) return std::move(r).take_error();
    return r->status;
  }
  Result<std::string> run_capture(const Policy& policy, const RunOpts& opts) override {
    auto c = render(policy, opts);
    if (!c) return std::move(c).take_error();
    auto r = runner_->run(*c, true);
    if (!r) return std::move(r).take_error();
    return std::move(r->out);
  }

 private:
  std::shared_ptr<CommandRunner> runner_;
};

// ---- systemd-run ----------------------------------------------------------------------------

}  // namespace

SystemdHost systemd_host_now() {
  SystemdHost h;
  struct stat st{};
  h.systemd_running = ::lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
  if (const char* a = std::getenv("DBUS_SESSION_BUS_ADDRESS")) h.bus_address = a;
  if (const char* x = std::getenv("XDG_RUNTIME_DIR")) h.runtime_dir = x;
  h.runtime_bus_exists = !h.runtime_dir.empty() && h.runtime_dir[0] == '/' &&
                         ::stat((h.runtime_dir + "/bus").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
  return h;
}

Result<void> systemd_user_manager(const SystemdHost& h) {
  const std::string where = "--backend systemd-run";
  if (!h.systemd_running)
    return make_error("systemd-run --user needs systemd as PID 1 and your user manager; this host has no systemd "
                      "(/run/systemd/system is missing, e.g. in a container)",
                      where, "use --backend native (the default) or bubblewrap; `paddock doctor` lists what this host has");
  if (!h.bus_address.empty() || h.runtime_bus_exists) return {};
  const std::string why = h.runtime_dir.empty() ? "XDG_RUNTIME_DIR is not set"
                                                : sys::display(h.runtime_dir) + "/bus does not exist";
  return make_error("systemd-run --user cannot reach your user manager: " + why +
                        " and DBUS_SESSION_BUS_ADDRESS is not set (a shell from su, sudo or cron has no user session)",
                    where,
                    "log in through a session (ssh, or `machinectl shell USER@`), or keep a user manager running with "
                    "`loginctl enable-linger USER`; or use --backend native or bubblewrap");
}

namespace {

class SystemdJail : public Jail {
 public:
  SystemdJail(std::shared_ptr<CommandRunner> r, bool check_host) : runner_(std::move(r)), check_host_(check_host) {}
  std::string_view name() const override { return "systemd-run"; }

  Result<Command> render(const Policy& policy, const RunOpts& opts) const override {
    if (policy.network.mode == NetMode::Filtered)
      return make_error("systemd-run cannot filter the network by host name", "--backend systemd-run",
                        "use --backend native for --allow-domain, or --allow-net / no network");
    auto plain = [](const std::string& p) -> Result<void> {
      // Unit property values are split on whitespace and take ':' as a separator.
      if (p.find_first_of(" \t\n:\"'\\") != std::string::npos)
        return make_error("a path with spaces, quotes, ':' or '\\' cannot be passed to systemd-run", p,
                          "use --backend native or bubblewrap");
      return {};
    };
    const std::string cwd = opts.workspace.path.empty() ? policy.cwd : opts.workspace.path;
    std::vector<std::string> argv = {"systemd-run", "--user", "--pipe", "--wait", "--collect", "--quiet",
                                     "--service-type=exec"};
    auto prop = [&](const std::string& p) { argv.insert(argv.end(), {"-p", p}); };
    if (auto r = plain(policy.home); !r) return std::move(r).take_error();
    if (auto r = plain(cwd); !r) return std::move(r).take_error();
    prop("WorkingDirectory=" + cwd);
    if (!opts.workspace.home_dir.empty()) {
      if (auto r = plain(opts.workspace.home_dir); !r) return std::move(r).take_error();
      prop("TemporaryFileSystem=" + policy.home + ":mode=0700");
      prop("BindPaths=" + opts.workspace.home_dir + ":" + policy.home);
    } else {
      prop("TemporaryFileSystem=" + policy.home + ":mode=0700");
    }
    prop("ProtectSystem=strict");
    prop("PrivateTmp=yes");
    prop("NoNewPrivileges=yes");
    prop("PrivateDevices=yes");
    prop("ProtectKernelTunables=yes");
    prop("ProtectControlGroups=yes");
    prop("RestrictSUIDSGID=yes");
    if (policy.network.mode != NetMode::Host) prop("PrivateNetwork=yes");
    for (const PathRule& r : policy.paths) {
      if (!r.symlink_target.empty() || r.origin.kind == Origin::Kind::BuiltIn) continue;  // the system is read-only already
      if (auto p = plain(r.path); !p) return std::move(p).take_error();
      prop(std::string(grants(r.access, Access::Write) ? "BindPaths=" : "BindReadOnlyPaths=") + (r.optional ? "-" : "") + r.path);
    }
    for (const SandboxMount& m : opts.workspace.mounts) {
      if (!m.overlay_upper.empty())
        return make_error("systemd-run cannot mount an overlay workspace", m.sandbox_path,
                          "use --backend native or bubblewrap");
      if (m.host_path.empty()) continue;
      if (auto p = plain(m.host_path); !p) return std::move(p).take_error();
      if (auto p = plain(m.sandbox_path); !p) return std::move(p).take_error();
      prop(std::string(grants(m.access, Access::Write) ? "BindPaths=" : "BindReadOnlyPaths=") + m.host_path + ":" +
           m.sandbox_path);
    }
    for (const DeniedPath& d : policy.denied) {
      if (auto p = plain(d.path); !p) continue;
      prop("InaccessiblePaths=-" + d.path);
    }
    for (const ProtectedPath& p : policy.protected_paths) {
      if (!p.exists || !plain(p.path)) continue;
      prop("ReadOnlyPaths=-" + p.path);
    }
    // The environment as unit properties: names and values that are not secret.
    for (const auto& kv : command_env(policy, opts)) {
      if (kv.compare(0, 5, "HOME=") == 0 || kv.compare(0, 4, "PWD=") == 0) continue;
      argv.insert(argv.end(), {"-E", kv});
    }
    Command c;
    c.env = opts.host_env ? *opts.host_env : process_env();
    // Secrets: each a credential loaded from a 0600 file the runner writes just before and
    // removes after; the unit's properties name the file, never the value. A fixed script
    // (no secret in it) turns them into environment variables inside.
    std::vector<std::string> cmd = opts.command;
    if (!opts.secrets.empty()) {
      std::string dir = opts.secrets_dir;
      if (dir.empty()) {
        const char* x = std::getenv("XDG_RUNTIME_DIR");
        dir = x && x[0] == '/' ? x : "/tmp";
      }
      for (const auto& [name, value] : opts.secrets) {
        const std::string file = dir + "/paddock-credential." + name;
        prop("LoadCredential=" + name + ":" + file);
        c.files.push_back({file, value});
      }
      cmd.insert(cmd.begin(), {"/bin/sh", "-c",
                               "for f in \"$CREDENTIALS_DIRECTORY\"/*; do export \"${f##*/}=$(cat \"$f\")\"; done; "
                               "exec \"$@\"",
                               "paddock-credentials"});
    }
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    c.argv = std::move(argv);
    return c;
  }

  std::vector<std::string> missing_guarantees(const Policy&) const override {
    return {
        "an empty root (everything not listed stays visible read-only; only HOME is replaced)",
        "Landlock (the second filesystem layer)",
        "seccomp denylist (paddock's; systemd's own filters are not set)",
        "egress filter (--allow-domain)",
        "paddock's resource limits (a unit's own could be set instead)",
        "the checks after the run (git control files, agent configs left behind)",
    };
  }
  Result<int> run(const Policy& policy, const RunOpts& opts) override {
    auto r = run_unit(policy, opts, false);
    if (!r) return std::move(r).take_error();
    return r->status;
  }
  Result<std::string> run_capture(const Policy& policy, const RunOpts& opts) override {
    auto r = run_unit(policy, opts, true);
    if (!r) return std::move(r).take_error();
    return std::move(r->out);
  }

 private:
  Result<CommandRunner::Output> run_unit(const Policy& policy, const RunOpts& opts, bool capture) {
    auto c = render(policy, opts);
    if (!c) return std::move(c).take_error();
    if (check_host_)
      if (auto ok = systemd_user_manager(systemd_host_now()); !ok) return std::move(ok).take_error();
    return runner_->run(*c, capture);
  }
  std::shared_ptr<CommandRunner> runner_;
  bool check_host_;
};

}  // namespace

std::shared_ptr<CommandRunner> real_runner() { return std::make_shared<RealRunner>(); }

std::vector<std::string> backend_names() { return {"native", "bubblewrap", "systemd-run"}; }

Result<std::unique_ptr<Jail>> make_jail(std::string_view backend, std::shared_ptr<CommandRunner> runner) {
  const bool real = !runner;
  if (real) runner = real_runner();
  if (backend == "native") return std::unique_ptr<Jail>(new NativeJail());
  if (backend == "bubblewrap") return std::unique_ptr<Jail>(new BubblewrapJail(runner));
  if (backend == "systemd-run") return std::unique_ptr<Jail>(new SystemdJail(runner, real));
  return make_error("unknown backend \"" + std::string(backend) + "\"", "--backend",
                    "use native (the default), bubblewrap or systemd-run");
}

}  // namespace paddock::jail
