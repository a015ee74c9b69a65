#include "engine/denylist_supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

#include "engine/notify_loop.h"
#include "engine/seccomp_policy_rules.h"
#include "supervisor/denial.h"
#include "sys/syscalls.h"

namespace paddock::engine {
namespace {

const char* errno_name(int e) {
  const char* n = strerrorname_np(e);
  return n ? n : "errno";
}

// The caller's command name, as the sandbox set it: a hint for people, never a decision.
std::string comm_of(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/comm";
  sys::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return {};
  char buf[64];
  ssize_t n = read(fd.get(), buf, sizeof buf);
  if (n <= 0) return {};
  std::string s(buf, static_cast<std::size_t>(n));
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

DenylistAnswer denylist_answer(const SeccompOptions& opts, int nr, const std::uint64_t (&args)[6]) {
  DenylistAnswer a;
  if (const SeccompRule* r = denylist_match(opts, nr, args)) {
    a.error = r->err;
    a.denial = supervisor::from_syscall(r->label ? r->label : r->name, errno_name(r->err), r->why);
    return a;
  }
  // The BPF refused a call the list does not name: still refused (never success), and said.
  a.error = EPERM;
  a.denial = supervisor::from_syscall("syscall " + std::to_string(nr), "EPERM",
                                      "refused by the filter, matched by no entry of the list");
  return a;
}

struct DenylistSupervisor::Impl {
  sys::UniqueFd listener;
  SeccompOptions opts;
  supervisor::DenialLog* log = nullptr;
  sys::UniqueFd stop;
  std::thread thread;
  seccomp_notif_sizes sizes{};

  void run();
};

void DenylistSupervisor::Impl::run() {
  Denial pending;
  auto answer = [&](const seccomp_notif& req) -> std::optional<int> {
    std::uint64_t args[6];
    for (int i = 0; i < 6; ++i) args[i] = req.data.args[i];
    DenylistAnswer a = denylist_answer(opts, req.data.nr, args);
    a.denial.pid = static_cast<int>(req.pid);
    a.denial.comm = comm_of(static_cast<pid_t>(req.pid));
    pending = std::move(a.denial);
    return a.error;  // the answer first (the caller waits on it), then the record
  };
  // A caller killed while it waited never met the refusal: not recorded.
  auto after = [&](const seccomp_notif&, bool answered) {
    if (answered) log->record(std::move(pending));
  };
  notify_loop(listener.get(), stop.get(), sizes, answer, after);
}

DenylistSupervisor::DenylistSupervisor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

DenylistSupervisor::~DenylistSupervisor() {
  if (!impl_) return;
  std::uint64_t one = 1;
  (void)!write(impl_->stop.get(), &one, sizeof one);
  if (impl_->thread.joinable()) impl_->thread.join();
}

Result<std::unique_ptr<DenylistSupervisor>> DenylistSupervisor::start(sys::UniqueFd listener, SeccompOptions opts,
                                                                      supervisor::DenialLog* log) {
  auto impl = std::make_unique<Impl>();
  impl->listener = std::move(listener);
  impl->opts = opts;
  impl->log = log;
  impl->stop.reset(eventfd(0, EFD_CLOEXEC));
  if (!impl->stop) return errno_error("eventfd", errno, "seccomp supervisor");
  if (sys::seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &impl->sizes) != 0)
    return errno_error("seccomp notification sizes", errno, "seccomp supervisor");
  Impl* raw = impl.get();
  raw->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<DenylistSupervisor>(new DenylistSupervisor(std::move(impl)));
}

}  // namespace paddock::engine
