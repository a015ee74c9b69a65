#include "mcp/sandbox_executor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "mcp/session_repl.h"
#include "mcp/timer.h"
#include "mcp/warm_pool.h"
#include "mcp/workspace.h"
#include "net/decision_log.h"
#include "net/domain_policy.h"
#include "paddock/policy.h"
#include "paddock/sandbox.h"
#include "sys/unique_fd.h"

namespace paddock::mcp {
namespace {

constexpr const char* kSystemPath = "/usr/local/bin:/usr/bin:/bin";
constexpr const char* kWorkspace = "/workspace";
constexpr const char* kProject = "/project";

// The egress filter's decisions since the last take(), aggregated by host, port, protocol and
// verdict (at most kCallNetworkLines, the rest as "(other hosts)"): what one call (or one call
// of a session) tried. Fed from the filter's threads.
constexpr std::size_t kCallNetworkLines = 100;
class CallNetwork {
 public:
  void add(const NetworkDecision& d) {
    std::lock_guard lock(mu_);
    tally_.add(d);
  }
  std::vector<NetworkDecision> take() {
    std::lock_guard lock(mu_);
    return tally_.take();
  }

 private:
  std::mutex mu_;
  net::DecisionTally tally_{kCallNetworkLines};
};

// One sandbox for one call: started (warm: waiting for its code on stdin) or about to be.
struct Prepared : WarmSlot {
  Workspace workspace;
  std::shared_ptr<CallNetwork> network;  // with domain lists only
  std::shared_ptr<CancelToken> cancel;
  std::unique_ptr<Execution> exec;
  sys::UniqueFd stdin_fd;  // warm: the code goes here
  bool waited = false;

  ~Prepared() override {
    if (exec && !waited) {
      cancel->cancel();
      (void)exec->wait();
    }
    // The workspace is removed after the sandbox is gone (member order: destroyed last).
  }
};

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = sys::retry_eintr([&] { return ::write(fd, data.data(), data.size()); });
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

class SandboxExecutorImpl : public Executor {
 public:
  SandboxExecutorImpl(const Config& config, SandboxExecutorOptions options, HostContext host,
                      std::string state_dir)
      : options_(std::move(options)), host_(std::move(host)), state_dir_(std::move(state_dir)) {
    for (const auto& [name, env] : config.environments) envs_[name] = env;
    std::map<std::string, unsigned> targets;
    if (options_.warm)
      for (const auto& [name, env] : envs_)
        if (env.warmable) targets[name] = env.warm;
    pool_ = std::make_unique<WarmPool>(targets, [this](const std::string& name) {
      return start_warm(envs_.at(name));
    });
  }

  ~SandboxExecutorImpl() override { shutdown(); }

  void start_background() override { pool_->start(); }

  void shutdown() override {
    pool_->stop();
    std::map<std::string, std::unique_ptr<Session>> doomed;
    {
      std::lock_guard lock(sessions_mu_);
      doomed.swap(sessions_);
    }
    doomed.clear();
    wait_background_cleanup();
    // Nothing runs any more: the workspaces' parent goes too.
    if (!state_dir_.empty()) remove_tree(state_dir_);
  }

  std::vector<PoolState> pool_states() override {
    std::vector<PoolState> out;
    if (!options_.warm) return out;
    for (const auto& [name, env] : envs_)
      if (env.warmable && env.warm > 0)
        out.push_back({name, env.warm, pool_->ready(name), !pool_->last_error(name).empty()});
    return out;
  }

  std::string describe(const Environment& env) override {
    if (!env.warmable || !options_.warm || env.warm == 0) return "cold start per call";
    std::string err = pool_->last_error(env.name);
    if (!err.empty()) return "warm pool failing: " + err;
    return fmt::format("{} of {} sandboxes ready", pool_->ready(env.name), env.warm);
  }

  Result<ExecOutcome> execute(const ExecRequest& req, CallControl& control) override {
    if (!req.session.empty()) return execute_in_session(req, control);
    auto t0 = std::chrono::steady_clock::now();
    const Environment& env = *req.env;
    std::unique_ptr<Prepared> p;
    bool warm = false;
    if (env.warmable) {
      if (auto slot = pool_->take(env.name)) {
        p.reset(static_cast<Prepared*>(slot.release()));
        warm = true;
      } else {
        auto started = start_sandbox(env, nullptr);
        if (!started) return failed(started.error(), t0);
        p = std::move(*started);
      }
    } else {
      auto started = start_sandbox(env, &req.code);
      if (!started) return failed(started.error(), t0);
      p = std::move(*started);
    }

    auto t_ready = std::chrono::steady_clock::now();
    control.on_cancel([c = p->cancel] { c->cancel(); });
    Deadline deadline(req.timeout, [c = p->cancel] { c->cancel(); });
    if (p->stdin_fd) {
      // A program that stops reading is killed by the deadline, which ends this write (EPIPE).
      write_all(p->stdin_fd.get(), req.code);
      p->stdin_fd.reset();
    }
    auto waited = p->exec->wait();
    p->waited = true;
    bool timed_out = deadline.stop();
    control.on_cancel(nullptr);
    if (!waited) return failed(waited.error(), t0);
    ExecOutcome o = outcome_from(*waited, timed_out, control.cancelled());
    take_network(*p, o);
    o.warm = warm;
    o.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    if (trace_)
      std::fprintf(stderr, "paddock mcp: trace: %s %s, sandbox ready after %.1f ms, done after %.1f ms\n",
                   env.name.c_str(), warm ? "warm" : "cold", ms_since(t0, t_ready), ms_since(t0, std::chrono::steady_clock::now()));
    return o;
  }

  Result<std::string> open_session(const Environment& env) override;
  void close_session(const std::string& id) override;

 private:
  struct Session;
  Result<ExecOutcome> execute_in_session(const ExecRequest& req, CallControl& control);

  static ExecOutcome failed(const Error& e, std::chrono::steady_clock::time_point t0) {
    ExecOutcome o;
    o.status = ExecOutcome::Status::Failed;
    o.error = e.describe();
    if (!e.hint.empty()) o.error += " (" + e.hint + ")";
    o.exit_code = 125;
    o.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    return o;
  }

  static void take_network(Prepared& p, ExecOutcome& o) {
    if (!p.network) return;
    o.network_filtered = true;
    o.network = p.network->take();
  }

  static ExecOutcome outcome_from(const RunResult& r, bool timed_out, bool cancelled) {
    ExecOutcome o;
    switch (r.status) {
      case RunResult::Status::Exited:
      case RunResult::Status::Signaled:
        break;
      case RunResult::Status::SetupFailed:
      case RunResult::Status::NotFound:
      case RunResult::Status::NotExecutable:
        o.status = ExecOutcome::Status::Failed;
        o.error = r.failure_message();
        break;
    }
    o.exit_code = r.shell_code();
    o.signal = r.status == RunResult::Status::Signaled ? r.signal : 0;
    o.stdout_data = r.stdout_data;
    o.stderr_data = r.stderr_data;
    o.stdout_truncated = r.stdout_truncated;
    o.stderr_truncated = r.stderr_truncated;
    o.stdout_bytes = std::max<std::uint64_t>(r.stdout_bytes, r.stdout_data.size());
    o.stderr_bytes = std::max<std::uint64_t>(r.stderr_bytes, r.stderr_data.size());
    o.timed_out = timed_out || r.timed_out;
    o.oom = r.oom;
    o.cancelled = cancelled && !o.timed_out;
    for (const auto& l : r.limits) {
      o.limits.push_back({l.name, l.requested, l.enforced_by, l.hit});
      if (l.name == "pids" && l.hit) o.pids_limit_hit = true;
    }
    o.warnings = r.warnings;
    for (const LeftBehind& l : r.left_behind)
      o.warnings.push_back("left behind: " + l.path + " (" + l.what + "); " + l.action);
    return o;
  }

  Result<Policy> policy_for(const Environment& env) {
    HostContext ctx = host_;
    // The sandbox starts in /workspace (RunOptions::cwd), which is also HOME; the host cwd
    // plays no part.
    ctx.cwd = state_dir_;
    ctx.home = kWorkspace;
    PolicyBuilder b(ctx);
    b.cwd_access(Access::None);
    for (const auto& p : env.read_only)
      b.allow(p, Access::Read, {Origin::Kind::Profile, "mcp environment " + env.name});
    b.network(env.network ? NetMode::Host : NetMode::Off);
    net::apply_domain_lists(b, env.network, env.allow_domains, env.deny_domains);
    b.set_env("PATH", kSystemPath);
    b.set_env("LANG", "C.UTF-8");
    for (const auto& [k, v] : env.env) b.set_env(k, v);
    Limits l;
    l.memory_bytes = std::uint64_t{env.limits.memory_mb} << 20;
    l.tmp_size_bytes = file_space(env.limits).tmp_bytes;
    l.shm_size_bytes = file_space(env.limits).shm_bytes;
    l.pids = env.limits.pids;
    // The timeout is enforced here (Deadline), from the moment the code is handed over: a warm
    // sandbox may wait a long time before that.
    b.limits(l);
    b.profile_name("mcp:" + env.name);
    return b.build();
  }

  // code == nullptr: stdin stays a pipe for the code (warm start); else the code is passed the
  // environment's way.
  Result<std::unique_ptr<Prepared>> start_sandbox(const Environment& env, const std::string* code,
                                                  std::vector<std::string> extra_args = {},
                                                  std::vector<int> pass_fds = {}) {
    auto p = std::make_unique<Prepared>();
    auto policy = policy_for(env);
    if (!policy) return std::move(policy).take_error();
    RunOptions opts;
    opts.argv = env.command;
    for (auto& a : extra_args) opts.argv.push_back(std::move(a));
    opts.host_env = std::vector<std::string>{};  // nothing from the server's environment
    opts.stdio = RunOptions::Stdio::Capture;
    opts.capture_limit = env.limits.max_output_bytes;
    opts.pty = false;
    opts.forward_signals = false;
    opts.expose_policy = false;
    // The result goes back to the client without waiting for the sandbox's namespace teardown;
    // shutdown() waits for the cgroups' removal.
    opts.background_cleanup = true;
    opts.pass_fds = std::move(pass_fds);
    // A fresh /workspace per sandbox: a private tmpfs (no host disk, gone with the sandbox), or
    // a host directory when the code is delivered as a file there before the start.
    SandboxMount ws{kWorkspace, "", Access::ReadWrite, file_space(env.limits).workspace_bytes};
    if (code && env.code_via == CodeVia::File) {
      auto dir = Workspace::create(state_dir_);
      if (!dir) return std::move(dir).take_error();
      p->workspace = std::move(*dir);
      ws.host_path = p->workspace.path();
    }
    opts.mounts.push_back(ws);
    if (!options_.project.empty())
      opts.mounts.push_back({kProject, options_.project, Access::Read, 0});
    opts.cwd = kWorkspace;
    if (policy->network.mode == NetMode::Filtered) {
      p->network = std::make_shared<CallNetwork>();
      opts.on_network_decision = [n = p->network](const NetworkDecision& d) { n->add(d); };
    }
    p->cancel = std::make_shared<CancelToken>();
    opts.cancel = p->cancel;
    if (!code) {
      opts.stdin_pipe = true;
    } else {
      switch (env.code_via) {
        case CodeVia::Stdin: opts.stdin_data = *code; break;
        case CodeVia::Argument: opts.argv.push_back(*code); break;
        case CodeVia::File: {
          std::string path = p->workspace.path() + "/" + env.file_name;
          sys::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
          if (!fd || !write_all(fd.get(), *code))
            return errno_error("cannot write the code file", errno, path);
          opts.argv.push_back(env.file_name);
          break;
        }
      }
    }
    auto exec = start(*policy, opts);
    if (!exec) return std::move(exec).take_error();
    p->exec = std::move(*exec);
    if (code == nullptr) {
      int fd = p->exec->take_stdin();
      if (fd < 0) return make_error("the sandbox has no stdin pipe", env.name);
      p->stdin_fd.reset(fd);
    }
    return p;
  }

  Result<std::unique_ptr<WarmSlot>> start_warm(const Environment& env) {
    auto p = start_sandbox(env, nullptr);
    if (!p) return std::move(p).take_error();
    return std::unique_ptr<WarmSlot>(std::move(*p));
  }

  static double ms_since(std::chrono::steady_clock::time_point a,
                         std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  }

  SandboxExecutorOptions options_;
  bool trace_ = std::getenv("PADDOCK_MCP_TRACE") != nullptr;
  HostContext host_;
  std::string state_dir_;
  std::map<std::string, Environment> envs_;
  std::unique_ptr<WarmPool> pool_;

  std::mutex sessions_mu_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
  std::uint64_t next_session_ = 0;
};

// ---- sessions --------------------------------------------------------------------------------

struct SandboxExecutorImpl::Session {
  std::unique_ptr<Prepared> sandbox;
  std::unique_ptr<ReplClient> repl;
  std::thread waiter;  // runs Execution::wait() for the session's lifetime
  std::mutex mu;
  bool dead = false;
  std::string death;  // why the sandbox is gone

  ~Session() {
    if (sandbox) sandbox->cancel->cancel();
    repl.reset();
    if (waiter.joinable()) waiter.join();
  }
};

Result<std::string> SandboxExecutorImpl::open_session(const Environment& env) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno_error("cannot create the session's reply pipe");
  sys::UniqueFd reply_read(fds[0]), reply_write(fds[1]);
  // pass_fds keeps the write end open in the sandbox under the same number.
  auto launcher = repl_launcher(env, reply_write.get());
  if (!launcher) return std::move(launcher).take_error();
  Environment shown = env;
  shown.command = launcher->argv;
  auto p = start_sandbox(shown, nullptr, {}, {reply_write.get()});
  if (!p) return std::move(p).take_error();
  reply_write.reset();
  auto s = std::make_unique<Session>();
  s->repl = std::make_unique<ReplClient>(std::move((*p)->stdin_fd), std::move(reply_read),
                                         env.limits.max_output_bytes);
  s->sandbox = std::move(*p);
  Session* raw = s.get();
  s->waiter = std::thread([raw] {
    auto r = raw->sandbox->exec->wait();
    std::lock_guard lock(raw->mu);
    raw->sandbox->waited = true;
    raw->dead = true;
    raw->death = !r ? r.error().describe()
                    : r->oom ? "the session's sandbox was killed by the memory limit"
                             : fmt::format("the session's interpreter ended (status {})", r->shell_code());
  });
  std::lock_guard lock(sessions_mu_);
  std::string id = "x" + std::to_string(++next_session_);
  sessions_[id] = std::move(s);
  return id;
}

void SandboxExecutorImpl::close_session(const std::string& id) {
  std::unique_ptr<Session> s;
  {
    std::lock_guard lock(sessions_mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    s = std::move(it->second);
    sessions_.erase(it);
  }
}

Result<ExecOutcome> SandboxExecutorImpl::execute_in_session(const ExecRequest& req,
                                                            CallControl& control) {
  auto t0 = std::chrono::steady_clock::now();
  Session* s;
  {
    std::lock_guard lock(sessions_mu_);
    auto it = sessions_.find(req.session);
    if (it == sessions_.end()) return make_error("the session is closed");
    s = it->second.get();
  }
  {
    std::lock_guard lock(s->mu);
    if (s->dead) return failed(make_error(s->death), t0);
  }
  // A timeout or a cancel kills the whole session: the interpreter may be in any state.
  control.on_cancel([c = s->sandbox->cancel] { c->cancel(); });
  Deadline deadline(req.timeout, [c = s->sandbox->cancel] { c->cancel(); });
  auto reply = s->repl->run(req.code);
  bool timed_out = deadline.stop();
  control.on_cancel(nullptr);
  ExecOutcome o;
  if (!reply) {
    // The sandbox is gone or going; give the waiter a moment to say why.
    std::string why = reply.error().describe();
    if (timed_out) {
      o.timed_out = true;
      o.exit_code = 137;
      o.signal = 9;
      o.stderr_data = "[the session was ended by the timeout; its state is lost]";
    } else if (control.cancelled()) {
      o.cancelled = true;
      o.exit_code = 137;
      o.signal = 9;
    } else {
      if (s->waiter.joinable()) {
        s->sandbox->cancel->cancel();
      }
      o = failed(make_error("session ended: " + why), t0);
    }
  } else {
    o.exit_code = reply->exit_code;
    o.stdout_data = std::move(reply->out);
    o.stderr_data = std::move(reply->err);
    o.stdout_bytes = reply->out_total;
    o.stderr_bytes = reply->err_total;
    o.stdout_truncated = reply->out_total > o.stdout_data.size();
    o.stderr_truncated = reply->err_total > o.stderr_data.size();
  }
  // Decisions made between two calls (a background thread of the session) go with the next one.
  take_network(*s->sandbox, o);
  o.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - t0);
  return o;
}

std::string default_state_root() {
  const char* t = std::getenv("TMPDIR");
  return (t && t[0] == '/') ? t : "/tmp";
}

}  // namespace

Result<std::shared_ptr<Executor>> make_sandbox_executor(const Config& config,
                                                        SandboxExecutorOptions options) {
  auto host = HostContext::from_process();
  if (!host) return std::move(host).take_error();
  std::string root = options.state_dir.empty() ? default_state_root() : options.state_dir;
  std::string tmpl = root + "/paddock-mcp.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return errno_error("cannot create the workspace directory", errno, root);
  if (!options.project.empty()) {
    char* real = ::realpath(options.project.c_str(), nullptr);
    if (!real) return errno_error("cannot resolve the project directory", errno, options.project);
    options.project = real;
    std::free(real);
  }
  return std::shared_ptr<Executor>(
      std::make_shared<SandboxExecutorImpl>(config, std::move(options), std::move(*host), buf.data()));
}

}  // namespace paddock::mcp
