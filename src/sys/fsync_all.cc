#include "sys/fsync_all.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

namespace paddock::sys {

Result<void> fsync_all(const std::vector<int>& fds, const std::vector<std::string>& where) {
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::size_t failed = fds.size();  // the first failing index
  int failed_errno = 0;
  auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= fds.size()) return;
      if (::fsync(fds[i]) == 0) continue;
      const int e = errno;
      std::lock_guard<std::mutex> lock(mu);
      if (i < failed) {
        failed = i;
        failed_errno = e;
      }
    }
  };
  const std::size_t helpers = std::min(fds.size(), kFsyncThreads) - (fds.empty() ? 0 : 1);
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (std::size_t t = 0; t < helpers; ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads: the ones there (and this one) do the rest
    }
  }
  work();
  for (auto& t : threads) t.join();
  if (failed == fds.size()) return {};
  return errno_error("fsync", failed_errno, failed < where.size() ? where[failed] : std::string());
}

}  // namespace paddock::sys
