#include "jail/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "sys/unique_fd.h"

extern char** environ;

namespace paddock::jail {

Result<ProcessResult> run_process(const std::vector<std::string>& argv, const std::string& cwd,
                                  const std::vector<std::string>& env, bool replace_env, const std::string* input) {
  if (argv.empty()) return make_error("no program to run");
  std::map<std::string, std::string> e;
  for (char** p = environ; !replace_env && *p; ++p) {
    std::string kv = *p;
    auto eq = kv.find('=');
    if (eq != std::string::npos) e[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& kv : env) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) e[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  std::vector<std::string> env_storage;
  for (auto& [k, v] : e) env_storage.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_storage) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  int out[2], err[2], in[2] = {-1, -1};
  if (input != nullptr && pipe2(in, O_CLOEXEC) < 0) return errno_error("pipe", errno, argv[0]);
  sys::UniqueFd in_r(in[0]), in_w(in[1]);
  if (pipe2(out, O_CLOEXEC) < 0) return errno_error("pipe", errno, argv[0]);
  sys::UniqueFd out_r(out[0]), out_w(out[1]);
  if (pipe2(err, O_CLOEXEC) < 0) return errno_error("pipe", errno, argv[0]);
  sys::UniqueFd err_r(err[0]), err_w(err[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (input != nullptr)
    posix_spawn_file_actions_adddup2(&fa, in_r.get(), 0);
  else
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return errno_error("cannot run " + argv[0], rc, cwd);
  out_w.reset();
  err_w.reset();
  in_r.reset();
  ProcessResult res;
  // Stdin is written as the child reads it, while its output is drained: neither side blocks.
  std::size_t written = 0;
  if (in_w && input->empty()) in_w.reset();
  if (in_w) fcntl(in_w.get(), F_SETFL, O_NONBLOCK);
  // A child that exits without reading all of it must not kill paddock with SIGPIPE: blocked
  // here (the write fails with EPIPE), and a pending one taken back afterwards.
  sigset_t pipe_sig, old_mask;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  const bool pipe_was_blocked = in_w && pthread_sigmask(SIG_BLOCK, &pipe_sig, &old_mask) == 0 &&
                                sigismember(&old_mask, SIGPIPE);
  pollfd fds[3] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}, {in_w ? in_w.get() : -1, POLLOUT, 0}};
  int open_count = 2;
  char buf[65536];
  while (open_count > 0 || fds[2].fd >= 0) {
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(fds[2].fd, input->data() + written, input->size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input->size()) {
        fds[2].fd = -1;
        in_w.reset();  // EOF for the child (or it stopped reading: EPIPE)
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        (i == 0 ? res.out : res.err).append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  if (input != nullptr && !input->empty() && !pipe_was_blocked) {
    const timespec zero = {0, 0};
    while (sigtimedwait(&pipe_sig, nullptr, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_UNBLOCK, &pipe_sig, nullptr);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  res.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return res;
}

Result<ProcessResult> run_git(const std::vector<std::string>& args, const std::string& cwd,
                              std::vector<std::string> env) {
  std::vector<std::string> argv = {"git",
                                   "-c", "core.hooksPath=/dev/null",
                                   "-c", "core.fsmonitor=false",
                                   "-c", "core.pager=cat",
                                   "-c", "core.quotePath=false",
                                   "-c", "protocol.file.allow=always"};
  argv.insert(argv.end(), args.begin(), args.end());
  env.push_back("GIT_CONFIG_NOSYSTEM=1");
  env.push_back("GIT_TERMINAL_PROMPT=0");
  env.push_back("GIT_PAGER=cat");
  env.push_back("LC_ALL=C");
  return run_process(argv, cwd, env);
}

Result<std::string> git_output(Result<ProcessResult> r, const std::vector<std::string>& args, const std::string& where) {
  if (!r) return std::move(r).take_error();
  if (r->status != 0) {
    std::string what = "git";
    for (const auto& a : args) what += " " + a;
    std::string msg = r->err;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return make_error(what + " failed (exit " + std::to_string(r->status) + "): " + msg, where);
  }
  return std::move(r->out);
}

Result<std::string> git_ok(const std::vector<std::string>& args, const std::string& cwd,
                           std::vector<std::string> env) {
  return git_output(run_git(args, cwd, std::move(env)), args, cwd);
}

}  // namespace paddock::jail
