// --net-log FILE (net_log.h).
#include "engine/net_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

#include "engine/report.h"
#include "net/decision_log.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock {
namespace {

// "2026-11-23T15:40:01.123Z"
std::string utc_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

}  // namespace

Result<std::function<void(const NetworkDecision&)>> open_net_log(const std::string& path, const Policy& policy) {
  if (policy.network.mode != NetMode::Filtered) {
    return make_error("the network is not filtered, so there are no decisions to log", "--net-log " + path,
                      "add --allow-domain HOST (or --deny-domain HOST with --allow-net)");
  }
  struct Log {
    sys::UniqueFd fd;
    net::DecisionTally tally;  // bounded: a flood of new names cannot fill the disk line by line
  };
  auto log = std::make_shared<Log>();
  // Its directory is opened with no symlink followed (it may lie where the sandbox can write).
  auto parts = sys::split_file_path(path);
  if (!parts) return make_error(parts.error().message, "--net-log " + path);
  auto dir = sys::open_dir_no_symlinks(parts->first);
  if (!dir) return make_error(dir.error().describe(), "--net-log " + path, dir.error().hint);
  log->fd.reset(::openat(dir->get(), parts->second.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
                         0600));
  if (!log->fd) return make_error(std::string("cannot open: ") + std::strerror(errno), "--net-log " + path);
  // Called one decision at a time (under the filter's log lock).
  return std::function<void(const NetworkDecision&)>([log](const NetworkDecision& d) {
    const NetworkDecision& line = log->tally.add(d);
    // A target's 1st, 10th, 100th, ... decision: every new target at once, repeats log-spaced.
    std::uint64_t c = line.count;
    while (c % 10 == 0) c /= 10;
    if (c != 1) return;
    nlohmann::json j = network_decision_json(line);
    j["time"] = utc_now();
    // Names from the sandbox arrive escaped (net::printable); never throw on bytes anyway.
    std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // One write per line, O_APPEND: lines never interleave, even with another writer.
    (void)!::write(log->fd.get(), text.data(), text.size());
  });
}

}  // namespace paddock
