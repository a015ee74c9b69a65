#include "host/creds.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sys/unique_fd.h"

namespace paddock::host {
namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

}  // namespace

Result<void> become(const Identity& who) {
  if (who.uid == 0) return make_error("refusing to become root", who.name);
  std::vector<gid_t> groups = who.groups;
  if (groups.empty()) groups.push_back(who.gid);
  if (::setgroups(groups.size(), groups.data()) != 0) return errno_error("setgroups", errno, who.name);
  if (::setresgid(who.gid, who.gid, who.gid) != 0) return errno_error("setresgid", errno, who.name);
  if (::setresuid(who.uid, who.uid, who.uid) != 0) return errno_error("setresuid", errno, who.name);
  uid_t r, e, s;
  gid_t rg, eg, sg;
  if (::getresuid(&r, &e, &s) != 0 || r != who.uid || e != who.uid || s != who.uid ||
      ::getresgid(&rg, &eg, &sg) != 0 || rg != who.gid || eg != who.gid || sg != who.gid)
    return make_error("the user ids did not change as asked", who.name);
  if (::setuid(0) == 0 || ::seteuid(0) == 0) return make_error("root could be regained after dropping it", who.name);
  return {};
}

Result<std::string> run_as(const Identity& who, const std::function<Result<std::string>()>& fn, std::size_t limit) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return errno_error("pipe", errno);
  sys::UniqueFd rd(p[0]), wr(p[1]);
  pid_t pid = ::fork();
  if (pid < 0) return errno_error("fork", errno);
  if (pid == 0) {
    rd.reset();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    std::string out;
    if (auto b = become(who); !b) {
      out = "E" + b.error().describe();
    } else {
      auto r = fn();
      out = r ? "O" + *r : "E" + r.error().describe();
    }
    _exit(write_all(wr.get(), out.data(), out.size()) ? 0 : 1);
  }
  wr.reset();
  std::string got;
  char buf[65536];
  bool too_much = false;
  while (true) {
    ssize_t k = ::read(rd.get(), buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    if (got.size() + static_cast<std::size_t>(k) > limit + 1) {
      too_much = true;
      ::kill(pid, SIGKILL);
      break;
    }
    got.append(buf, static_cast<std::size_t>(k));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (too_much) return make_error("more than " + std::to_string(limit >> 20) + " MiB came back", "as " + who.name);
  if (got.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return make_error("the child process running as " + who.name + " failed");
  if (got[0] == 'E') return make_error(got.substr(1), "as " + who.name);
  return got.substr(1);
}

}  // namespace paddock::host
