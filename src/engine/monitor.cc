#include "engine/monitor.h"

#include "engine/output_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "engine/deferred_cleanup.h"
#include "engine/discarded_writes.h"
#include "engine/pty.h"
#include "net/host_rule.h"
#include "sys/no_sigpipe.h"
#include "sys/raw_io.h"
#include "sys/remove_tree.h"
#include "sys/syscalls.h"

namespace paddock::engine {
namespace {

constexpr auto kTermGrace = std::chrono::seconds(2);
// How long the fallback's init gets to kill and reap the tree after its sweep signal before it
// is killed itself (it never needs that long; a SIGKILL then leaves the rest orphaned).
constexpr auto kSweepGrace = std::chrono::milliseconds(10000);

int dup_high(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 10); }

// The fallback's private HOME and /tmp, as the command left them: modes it took away (chmod 000)
// and any depth included (sys/remove_tree.h). Best effort: a run's result never depends on it.
void remove_fallback_dir(const std::string& dir) { (void)sys::remove_tree(dir); }

// The session's denials record and its directory: by path, with no descriptor (a start that
// failed for want of descriptors must not leave it behind).
void remove_denials_dir(const std::string& dir) {
  (void)unlink((dir + "/denials.jsonl").c_str());
  (void)rmdir(dir.c_str());
}

void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Appends what `fd` has to `sink` up to `cap` bytes, counting everything, and hands it to `relay`
// while the relay has room. False on EOF/error.
bool drain(int fd, std::string* sink, std::size_t cap, std::uint64_t* count, bool* truncated, OutputRelay* relay) {
  char buf[65536];
  for (;;) {
    if (relay != nullptr && !relay->has_room()) return true;  // the rest waits in the pipe
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      *count += static_cast<std::uint64_t>(n);
      if (sink) {
        std::size_t room = sink->size() < cap ? cap - sink->size() : 0;
        std::size_t take = std::min(room, static_cast<std::size_t>(n));
        sink->append(buf, take);
        if (take < static_cast<std::size_t>(n)) *truncated = true;
      }
      if (relay != nullptr) relay->push(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;  // EOF, or EIO on a pty whose other side is gone
  }
}

void arm(int tfd, std::chrono::milliseconds ms) {
  struct itimerspec its = {};
  its.it_value.tv_sec = ms.count() / 1000;
  its.it_value.tv_nsec = (ms.count() % 1000) * 1000000L;
  if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  timerfd_settime(tfd, 0, &its, nullptr);
}

}  // namespace

std::vector<sys::UniqueFd> receive_fds(int sock, std::size_t n, int flags) {
  std::vector<sys::UniqueFd> out;
  char byte;
  struct iovec iov = {&byte, 1};
  std::vector<char> cbuf(CMSG_SPACE(sizeof(int) * (n ? n : 1)));
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cbuf.data();
  msg.msg_controllen = cbuf.size();
  ssize_t r;
  do {
    r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
  } while (r < 0 && errno == EINTR);
  if (r <= 0) return out;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    int* fds = reinterpret_cast<int*>(CMSG_DATA(c));
    for (std::size_t i = 0; i < count; ++i) out.emplace_back(fds[i]);
  }
  return out;
}

Launch::~Launch() {
  if (sig_blocked) pthread_sigmask(SIG_SETMASK, &old_sigmask, nullptr);
  kill_and_reap(kSweepGrace);
  if (egress) egress->stop();
  if (!fallback_dir.empty()) remove_fallback_dir(fallback_dir);
  denylist.reset();  // before the record it writes to goes
  if (!denials_dir.empty()) remove_denials_dir(denials_dir);
}

int Launch::take_stdin() {
  return in_w_.release();
}

Result<void> Launch::setup_stdio_impl(Plan& plan) {
  auto keep_child = [&](int fd) {
    int h = dup_high(fd);
    close(fd);
    child_side_.emplace_back(h);
    return h;
  };
  if (opts.stdio == RunOptions::Stdio::Capture) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) < 0) return errno_error("pipe", errno, "capture");
    if (pipe2(err, O_CLOEXEC) < 0) {
      int e = errno;
      close(out[0]);  // the first pair is nobody's yet
      close(out[1]);
      return errno_error("pipe", e, "capture");
    }
    out_r_.reset(out[0]);
    err_r_.reset(err[0]);
    plan.stdio[1] = keep_child(out[1]);
    plan.stdio[2] = keep_child(err[1]);
    if (opts.stdin_data || opts.stdin_pipe) {
      int in[2];
      if (pipe2(in, O_CLOEXEC) < 0) return errno_error("pipe", errno, "capture");
      in_w_.reset(in[1]);
      plan.stdio[0] = keep_child(in[0]);
    } else {
      int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (devnull < 0) return errno_error("open", errno, "/dev/null");
      plan.stdio[0] = keep_child(devnull);
    }
    return {};
  }
  // Inherit: a pty of its own when stdin is a terminal, so nothing reaches the real one.
  bool tty_out[3] = {false, false, false};
  if (opts.pty && isatty(0) && plan.namespaces) {
    // The pty is made inside the sandbox (its own devpts); the master arrives after clone.
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return errno_error("socketpair", errno, "pty");
    pty_sock_.reset(sp[0]);
    plan.pty_sock = keep_child(sp[1]);
    plan.pty_have_termios = tcgetattr(0, &plan.pty_termios) == 0;
    ioctl(0, TIOCGWINSZ, &plan.pty_winsize);
    for (int i = 0; i < 3; ++i)
      if (isatty(i)) {
        plan.pty_stdio[i] = true;
        tty_out[i] = true;
      }
    pty_mode_ = true;
  } else if (opts.pty && isatty(0)) {
    auto p = open_pty(0);
    if (!p) return std::move(p).take_error();
    pty_master_ = std::move(p->master);
    int slave = keep_child(p->slave.release());
    for (int i = 0; i < 3; ++i)
      if (isatty(i)) {
        plan.stdio[i] = slave;
        tty_out[i] = true;
      }
    plan.ctty_fd = slave;
    pty_mode_ = true;
  }
  // Counting output (for the run report): stdout/stderr not on the pty go through a relay pipe.
  if (opts.count_output) {
    for (int i = 1; i <= 2; ++i) {
      if (tty_out[i]) continue;
      int p[2];
      if (pipe2(p, O_CLOEXEC) < 0) return errno_error("pipe", errno, "output relay");
      (i == 1 ? out_r_ : err_r_).reset(p[0]);
      plan.stdio[i] = keep_child(p[1]);
    }
    relay_outputs_ = true;
  }
  return {};
}

void Launch::close_child_side() { child_side_.clear(); }

void Launch::receive_pty() {
  if (!pty_sock_) return;
  auto fds = receive_fds(pty_sock_.get(), 1);
  pty_sock_.reset();
  if (!fds.empty()) pty_master_ = std::move(fds[0]);
}

bool Launch::read_message(ChildMessage& m) {
  std::size_t got = 0;
  char* p = reinterpret_cast<char*>(&m);
  while (got < sizeof(m)) {
    ssize_t n = read(report.get(), p + got, sizeof(m) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

void Launch::kill_and_reap(std::chrono::milliseconds grace) {
  if (child_pid <= 0 || waited_) return;
  auto signal = [&](int sig) {
    if (pidfd) sys::pidfd_send_signal(pidfd.get(), sig);
    else kill(child_pid, sig);
  };
  if (sweep_signal > 0 && pidfd) {
    signal(sweep_signal);
    auto deadline = std::chrono::steady_clock::now() + grace;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p = {pidfd.get(), POLLIN, 0};
      int r = left.count() > 0 ? poll(&p, 1, static_cast<int>(left.count())) : 0;
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) signal(SIGKILL);
      break;
    }
  } else {
    signal(SIGKILL);
  }
  reap();
}

void Launch::reap() {
  if (child_pid <= 0 || waited_) return;
  pid_t r;
  do {
    r = wait4(child_pid, &wait_status_, 0, &rusage_);
  } while (r < 0 && errno == EINTR);
  waited_ = true;
}

namespace {
std::mutex g_detached_mu;
std::vector<pid_t> g_detached;  // our children: their pids cannot be reused until reaped
}  // namespace

void Launch::detach_init() {
  if (child_pid <= 0 || waited_) return;
  {
    std::lock_guard<std::mutex> lock(g_detached_mu);
    g_detached.push_back(child_pid);
  }
  waited_ = true;
  reap_detached();  // often already gone
}

void reap_detached() {
  std::lock_guard<std::mutex> lock(g_detached_mu);
  std::erase_if(g_detached, [](pid_t p) {
    pid_t r = waitpid(p, nullptr, WNOHANG | __WALL);
    return r == p || (r < 0 && errno == ECHILD);
  });
}

void Launch::reset_for_retry() {
  child_pid = -1;
  waited_ = false;
  pidfd.reset();
  report.reset();
  pending.clear();
  out_r_.reset();
  err_r_.reset();
  in_w_.reset();
  pty_master_.reset();
  pty_sock_.reset();
  scratch_sock.reset();
  child_side_.clear();
  pty_mode_ = false;
  denylist.reset();  // the failed attempt's listener: nobody calls through it again
  denials_fd.reset();
  if (!denials_dir.empty()) {
    remove_denials_dir(denials_dir);
    denials_dir.clear();
  }
  if (!fallback_dir.empty()) {
    remove_fallback_dir(fallback_dir);
    fallback_dir.clear();
  }
}

Result<RunResult> Launch::wait() {
  if (waited_ && child_pid < 0) return make_error("wait() called twice", "run");
  RunResult res;
  res.isolation = isolation;
  res.warnings = warnings;
  res.isolation_gaps = isolation_gaps;

  // Signals to forward (CLI): taken through a signalfd so the loop sees them in order.
  sigset_t fwd;
  sigemptyset(&fwd);
  const bool forwarding = sig_blocked;  // blocked by start() before clone
  sys::UniqueFd sigfd;
  if (forwarding) {
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH}) sigaddset(&fwd, s);
    sigfd.reset(signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK));
  }
  std::unique_ptr<RawMode> raw;
  if (pty_mode_ && pty_master_) {
    raw = std::make_unique<RawMode>(0);
    set_nonblock(pty_master_.get());
  }
  sys::UniqueFd timer;
  bool term_sent = false;
  if (policy->limits.timeout) {
    timer.reset(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_time);
    arm(timer.get(), *policy->limits.timeout > elapsed ? *policy->limits.timeout - elapsed : std::chrono::milliseconds(0));
  }
  if (out_r_) set_nonblock(out_r_.get());
  if (err_r_) set_nonblock(err_r_.get());
  // paddock's own stdout/stderr, written by relay threads (output_relay.h).
  if (relay_outputs_ || (pty_mode_ && pty_master_)) out_relay_ = std::make_unique<OutputRelay>(1);
  if (relay_outputs_) err_relay_ = std::make_unique<OutputRelay>(2);
  auto abandon_relays = [&] {
    if (out_relay_) out_relay_->abandon();
    if (err_relay_) err_relay_->abandon();
  };
  std::string stdin_buf = opts.stdin_data.value_or("");
  std::size_t stdin_off = 0;
  if (in_w_ && opts.stdin_data) set_nonblock(in_w_.get());
  if (in_w_ && opts.stdin_data && stdin_buf.empty()) in_w_.reset();

  bool init_done = false;
  bool init_left_cgroups = false;  // the init wrote into leave_fds() before its ExitStatus
  bool report_open = true;
  bool user_stdin_open = pty_mode_ && pty_master_;
  pid_t command_pid = -1;

  // The fallback's init is asked to sweep first; SIGKILL follows if it has not ended in time.
  sys::UniqueFd sweep_timer;
  auto kill_tree = [&](int sig) {
    if (sig == SIGKILL && sweep_signal > 0 && pidfd && !sweep_timer) {
      sys::pidfd_send_signal(pidfd.get(), sweep_signal);
      resources->kill_all();
      sweep_timer.reset(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
      if (sweep_timer) {
        arm(sweep_timer.get(), kSweepGrace);
        return;
      }
    }
    if (pidfd) sys::pidfd_send_signal(pidfd.get(), sig);
    else kill(child_pid, sig);
    if (sig == SIGKILL) {
      resources->kill_all();
      if (!namespaces && command_pid > 0) kill(-command_pid, SIGKILL);
    }
  };
  auto handle_message = [&](const ChildMessage& m) {
    switch (m.type) {
      case ChildMessage::SetupError:
        res.status = RunResult::Status::SetupFailed;
        res.setup_step = m.step;
        res.setup_errno = m.err;
        res.setup_detail = m.detail;
        break;
      case ChildMessage::ExecError:
        res.status = (m.err == ENOENT || m.err == ENOTDIR) ? RunResult::Status::NotFound
                                                           : RunResult::Status::NotExecutable;
        res.setup_step = "exec";
        res.setup_errno = m.err;
        res.setup_detail = m.detail;
        break;
      case ChildMessage::Started:
        command_pid = m.value;
        break;
      case ChildMessage::Usage: {
        unsigned long long ut = 0, st = 0, rss = 0;
        if (std::sscanf(m.detail, "%llu %llu %llu", &ut, &st, &rss) == 3) {
          rusage_.ru_utime = {static_cast<time_t>(ut / 1000000), static_cast<suseconds_t>(ut % 1000000)};
          rusage_.ru_stime = {static_cast<time_t>(st / 1000000), static_cast<suseconds_t>(st % 1000000)};
          rusage_.ru_maxrss = static_cast<long>(rss);
          usage_reported_ = true;
        }
        break;
      }
      case ChildMessage::ExitStatus:
        if (m.err > 0) res.processes_started = static_cast<std::uint64_t>(m.err);
        if (res.status == RunResult::Status::Exited) {
          if (WIFSIGNALED(m.value)) {
            res.status = RunResult::Status::Signaled;
            res.signal = WTERMSIG(m.value);
          } else {
            res.exit_code = WEXITSTATUS(m.value);
          }
        }
        init_left_cgroups = std::strcmp(m.detail, kLeftCgroups) == 0;
        init_done = true;
        break;
    }
  };
  for (const ChildMessage& m : pending) handle_message(m);
  pending.clear();
  bool got_exit_message = init_done;
  // The run is over once the init has said so (it kills and reaps the rest first); its own
  // exit, the namespace teardown, is not waited for. Cgroups can only be removed after that
  // exit: then their figures are read while the init exits, and the run waits for it before
  // removing them, unless their removal may happen in the background.
  const bool has_cgroups = resources->has_cgroups();

  bool child_gone = false;
  for (;;) {
    std::vector<pollfd> pfds;
    enum Src { kReport, kPidfd, kOut, kErr, kIn, kPty, kUser, kSig, kTimer, kCancel, kSweepTimer };
    std::vector<Src> srcs;
    auto add = [&](int fd, short ev, Src s) {
      pfds.push_back({fd, ev, 0});
      srcs.push_back(s);
    };
    if (report_open) add(report.get(), POLLIN, kReport);
    if (!child_gone && pidfd) add(pidfd.get(), POLLIN, kPidfd);
    // A source whose relay is full is not read (its writer waits, as on a pipe), but the loop
    // keeps serving timers and signals, checking for room every few milliseconds.
    bool held_back = false;
    auto room = [&](OutputRelay* r) {
      if (r == nullptr || r->has_room()) return true;
      held_back = true;
      return false;
    };
    if (out_r_ && room(out_relay_.get())) add(out_r_.get(), POLLIN, kOut);
    if (err_r_ && room(err_relay_.get())) add(err_r_.get(), POLLIN, kErr);
    if (in_w_ && opts.stdin_data) add(in_w_.get(), POLLOUT, kIn);
    if (pty_master_ && room(out_relay_.get())) add(pty_master_.get(), POLLIN, kPty);
    if (user_stdin_open) add(0, POLLIN, kUser);
    if (sigfd) add(sigfd.get(), POLLIN, kSig);
    if (timer) add(timer.get(), POLLIN, kTimer);
    if (opts.cancel) add(opts.cancel->fd(), POLLIN, kCancel);
    if (sweep_timer && !child_gone) add(sweep_timer.get(), POLLIN, kSweepTimer);

    bool outputs_open = out_r_ || err_r_ || pty_master_;
    if (child_gone && !report_open && !outputs_open) break;
    if (namespaces && got_exit_message && usage_reported_ && !outputs_open) break;
    // Once the init is gone, whatever still holds an output open (a fallback-mode orphan) gets
    // a moment to flush (the 200 ms poll below), then we stop reading.
    int n = poll(pfds.data(), pfds.size(), held_back ? 10 : child_gone ? 200 : -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0 && child_gone && !held_back) break;
    for (std::size_t i = 0; i < pfds.size(); ++i) {
      if (!pfds[i].revents) continue;
      switch (srcs[i]) {
        case kReport: {
          // Everything already written (Usage and ExitStatus come back to back).
          pollfd more = {report.get(), POLLIN, 0};
          do {
            ChildMessage m;
            if (!read_message(m)) {
              report_open = false;
              break;
            }
            handle_message(m);
            if (m.type == ChildMessage::ExitStatus) got_exit_message = true;
          } while (poll(&more, 1, 0) == 1 && (more.revents & POLLIN));
          break;
        }
        case kPidfd:
          reap();
          child_gone = true;
          break;
        case kOut:
          // A reader that left ends the source: the command's next write gets SIGPIPE, as on a pipe.
          if (!drain(out_r_.get(), relay_outputs_ ? nullptr : &res.stdout_data, opts.capture_limit,
                     &res.stdout_bytes, &res.stdout_truncated, out_relay_.get()) ||
              (out_relay_ && out_relay_->reader_gone()))
            out_r_.reset();
          break;
        case kErr:
          if (!drain(err_r_.get(), relay_outputs_ ? nullptr : &res.stderr_data, opts.capture_limit,
                     &res.stderr_bytes, &res.stderr_truncated, err_relay_.get()) ||
              (err_relay_ && err_relay_->reader_gone()))
            err_r_.reset();
          break;
        case kIn: {
          // A command that exits without reading it all must not kill the caller (a library user
          // keeps SIGPIPE's default action).
          ssize_t w = sys::write_without_sigpipe(in_w_.get(), stdin_buf.data() + stdin_off,
                                                 stdin_buf.size() - stdin_off);
          if (w > 0) stdin_off += static_cast<std::size_t>(w);
          if ((w < 0 && errno != EAGAIN && errno != EINTR) || stdin_off == stdin_buf.size()) in_w_.reset();
          break;
        }
        case kPty:
          if (!drain(pty_master_.get(), nullptr, 0, &res.stdout_bytes, &res.stdout_truncated, out_relay_.get()) ||
              (out_relay_ && out_relay_->reader_gone())) {
            pty_master_.reset();
            user_stdin_open = false;
          }
          break;
        case kUser: {
          char buf[4096];
          ssize_t r = read(0, buf, sizeof(buf));
          if (r > 0 && pty_master_) sys::write_all(pty_master_.get(), buf, static_cast<std::size_t>(r));
          else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) user_stdin_open = false;
          break;
        }
        case kSig: {
          struct signalfd_siginfo si;
          while (read(sigfd.get(), &si, sizeof(si)) == sizeof(si)) {
            int sig = static_cast<int>(si.ssi_signo);
            if (sig == SIGWINCH) {
              if (pty_master_) copy_window_size(0, pty_master_.get());
            } else if (!child_gone) {
              // The init forwards it to the command's process group.
              if (pidfd) sys::pidfd_send_signal(pidfd.get(), sig);
              else kill(child_pid, sig);
            }
          }
          break;
        }
        case kTimer: {
          std::uint64_t ticks;
          if (read(timer.get(), &ticks, sizeof(ticks)) < 0) {
          }
          if (!term_sent) {
            res.timed_out = true;
            term_sent = true;
            abandon_relays();  // what a stalled reader has not taken is dropped, not waited for
            kill_tree(SIGTERM);
            arm(timer.get(), std::chrono::duration_cast<std::chrono::milliseconds>(kTermGrace));
          } else {
            kill_tree(SIGKILL);  // the fallback's init sweeps first (kSweepTimer)
            timer.reset();
          }
          break;
        }
        case kCancel:
          res.cancelled = true;
          abandon_relays();
          kill_tree(SIGKILL);
          opts.cancel.reset();
          break;
        case kSweepTimer: {
          std::uint64_t ticks;
          if (read(sweep_timer.get(), &ticks, sizeof(ticks)) < 0) {
          }
          kill_tree(SIGKILL);  // the init did not finish its sweep: kill it
          break;
        }
      }
    }
  }
  // Output the reader has not taken yet: written out before the result (the footer comes after
  // it), unless the run was ended by a timeout or cancel (then it was dropped above).
  if (out_relay_) out_relay_->flush();
  if (err_relay_) err_relay_->flush();
  // The init reported the end of the tree and may still be exiting.
  const bool init_exiting = !waited_ && namespaces && got_exit_message && usage_reported_;
  if (!waited_ && !init_exiting) reap();
  if (forwarding) {
    pthread_sigmask(SIG_SETMASK, &old_sigmask, nullptr);
    sig_blocked = false;
  }
  raw.reset();

  // No exit message: the init itself was killed (timeout, cancel, memory limit, paddock's kill).
  if (!got_exit_message && res.status == RunResult::Status::Exited) {
    if (WIFSIGNALED(wait_status_)) {
      res.status = RunResult::Status::Signaled;
      res.signal = WTERMSIG(wait_status_);
    } else if (WIFEXITED(wait_status_) && WEXITSTATUS(wait_status_) != 0) {
      res.status = RunResult::Status::SetupFailed;
      res.setup_step = "sandbox init";
      res.setup_detail = "exited before reporting";
    }
  }
  res.search_path = search_path;
  if (!hidden_command.empty() &&
      (res.status == RunResult::Status::NotFound || res.status == RunResult::Status::NotExecutable))
    res.warnings.push_back(hidden_command + " exists on the host but the sandbox cannot see it; grant it with " +
                           hidden_command_grant);
  res.wall = std::chrono::steady_clock::now() - start_time;
  res.user_cpu_s = static_cast<double>(rusage_.ru_utime.tv_sec) + rusage_.ru_utime.tv_usec / 1e6;
  res.sys_cpu_s = static_cast<double>(rusage_.ru_stime.tv_sec) + rusage_.ru_stime.tv_usec / 1e6;
  res.peak_memory_bytes = static_cast<std::uint64_t>(rusage_.ru_maxrss) * 1024;
  if (init_exiting && has_cgroups) {
    resources->collect(res);  // while the init exits
    if (opts.background_cleanup) {
      waited_ = true;
      clean_up_in_background(child_pid, std::move(resources));
    } else if (init_left_cgroups) {
      // The init has left them: they are empty now, whatever its exit still takes.
      detach_init();
      for (std::string& w : resources->remove_cgroups()) res.warnings.push_back(std::move(w));
    } else {
      reap();
      for (std::string& w : resources->remove_cgroups()) res.warnings.push_back(std::move(w));
    }
  } else {
    if (init_exiting) detach_init();
    resources->finish(res);
  }
  if (egress) {
    egress->stop();
    for (const auto& d : egress->decisions()) {
      res.network.push_back(d);
      if (d.allowed) continue;
      std::string line = net::join_host_port(d.host, d.port) + " (" + d.protocol + ")";
      if (!d.allow_with.empty()) line += " — allow with " + d.allow_with;
      res.denied_hosts.push_back(line);
    }
  }
  broker.reset();  // every sandboxed process is gone
  denylist.reset();
  res.denials = denials->lines();
  // Nobody inside is left to read the session's record: it goes.
  denials_fd.reset();
  if (!denials_dir.empty()) {
    remove_denials_dir(denials_dir);
    denials_dir.clear();
  }
  // What the host would run or trust later: checked once every sandboxed process is gone.
  if (watch) {
    gate::WalkCost cost;
    res.left_behind = watch->after({}, &cost);
    res.check_dirs_listed = cost.listed;
    res.check_dirs_unchanged = cost.from_index;
  }
  // What was written where nothing of the host backs it, gone with the sandbox: said, not lost silently.
  if (scratch_sock) {
    auto fds = receive_fds(scratch_sock.get(), 1, MSG_DONTWAIT);
    scratch_sock.reset();
    if (fds.size() == 1) res.discarded = list_discarded_writes(fds[0].get(), scratch_home, scratch_setup);
  }
  // --max-file-size stops a write in whatever process makes it, and only a top-level command
  // that dies of SIGXFSZ shows in the exit status: a file the run left at exactly the limit says
  // where it was reached (RLIMIT_FSIZE cuts the write there). Host-backed areas only: the
  // sandbox's own /tmp is gone by now.
  if (watch && policy->limits.max_file_size_bytes) {
    for (LimitReport& l : res.limits) {
      if (l.name != "max-file-size") continue;
      auto files = watch->files_at_size(*policy->limits.max_file_size_bytes, 3);
      if (!files.empty()) {
        l.hit = true;
        for (const std::string& f : files)
          res.warnings.push_back("file-size limit " + l.requested + " reached by " + f +
                                 ": writes past it failed (EFBIG or SIGXFSZ)");
      }
    }
  }
  if (!fallback_dir.empty()) {
    remove_fallback_dir(fallback_dir);
    fallback_dir.clear();
  }
  child_pid = -1;
  return res;
}

}  // namespace paddock::engine
