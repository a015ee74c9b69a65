#include "supervisor/denial.h"
#include "engine/report.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock {
namespace {

using nlohmann::json;

const char* status_name(RunResult::Status s) {
  switch (s) {
    case RunResult::Status::Exited: return "exited";
    case RunResult::Status::Signaled: return "signaled";
    case RunResult::Status::SetupFailed: return "setup_failed";
    case RunResult::Status::NotFound: return "not_found";
    case RunResult::Status::NotExecutable: return "not_executable";
  }
  return "unknown";
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

double seconds(double s) { return std::round(s * 1000.0) / 1000.0; }  // millisecond precision

}  // namespace

json network_decision_json(const NetworkDecision& d) {
  return {{"host", d.host},
          {"port", d.port},
          {"protocol", d.protocol},
          {"allowed", d.allowed},
          {"count", d.count},
          {"reason", d.reason},
          {"allow_with", d.allow_with.empty() ? json(nullptr) : json(d.allow_with)}};
}

json run_report(const RunResult& r, const Policy& policy, const std::vector<std::string>& argv) {
  json j;
  j["version"] = kReportVersion;
  if (!argv.empty()) j["command"] = argv;

  json outcome;
  outcome["status"] = status_name(r.status);
  outcome["exit_code"] = r.status == RunResult::Status::Exited ? json(r.exit_code) : json(nullptr);
  outcome["signal"] = r.status == RunResult::Status::Signaled ? json(signal_name(r.signal)) : json(nullptr);
  outcome["shell_code"] = r.shell_code();
  outcome["timed_out"] = r.timed_out;
  outcome["oom"] = r.oom;
  outcome["cancelled"] = r.cancelled;
  outcome["message"] = r.failure_message();
  if (r.status == RunResult::Status::SetupFailed || r.status == RunResult::Status::NotFound ||
      r.status == RunResult::Status::NotExecutable) {
    json setup;
    setup["step"] = r.setup_step;
    setup["detail"] = r.setup_detail;
    setup["errno"] = r.setup_errno;
    setup["error"] = r.setup_errno ? std::string(strerror(r.setup_errno)) : std::string();
    outcome["setup"] = std::move(setup);
  }
  j["outcome"] = std::move(outcome);

  json limits = json::array();
  for (const LimitReport& l : r.limits) {
    limits.push_back({{"name", l.name},
                      {"requested", l.requested},
                      {"enforced_by", l.enforced_by},
                      {"weaker", l.weaker},
                      {"hit", l.hit}});
  }
  j["limits"] = std::move(limits);

  json usage;
  usage["wall_s"] = seconds(std::chrono::duration<double>(r.wall).count());
  usage["user_cpu_s"] = seconds(r.user_cpu_s);
  usage["sys_cpu_s"] = seconds(r.sys_cpu_s);
  usage["peak_memory_bytes"] = r.peak_memory_bytes;
  usage["processes_started"] = r.processes_started;
  usage["stdout_bytes"] = r.stdout_bytes;
  usage["stderr_bytes"] = r.stderr_bytes;
  usage["stdout_truncated"] = r.stdout_truncated;
  usage["stderr_truncated"] = r.stderr_truncated;
  j["usage"] = std::move(usage);

  j["isolation"] = r.isolation;
  j["warnings"] = r.warnings;
  json gaps = json::array();
  for (const IsolationGap& g : r.isolation_gaps) gaps.push_back({{"name", g.name}, {"consequence", g.consequence}});
  j["isolation_gaps"] = std::move(gaps);
  json left = json::array();
  for (const LeftBehind& l : r.left_behind) left.push_back({{"path", l.path}, {"what", l.what}, {"action", l.action}});
  j["left_behind"] = std::move(left);
  if (r.discarded.recorded) {
    j["discarded_writes"] = {{"entries", r.discarded.entries},
                             {"bytes", r.discarded.bytes},
                             {"topmost", r.discarded.tops},
                             {"paths", r.discarded.paths},
                             {"complete", r.discarded.complete}};
  }
  json denials = json::array();
  for (const Denial& d : r.denials) denials.push_back(supervisor::to_json(d));
  j["denials"] = std::move(denials);
  j["check"] = {{"directories_listed", r.check_dirs_listed}, {"directories_unchanged", r.check_dirs_unchanged}};
  if (policy.network.mode == NetMode::Filtered) {
    json network = json::array();
    for (const NetworkDecision& d : r.network) network.push_back(network_decision_json(d));
    j["network"] = std::move(network);
  }
  j["policy"] = policy_to_json(policy);
  return j;
}

Result<void> write_report_at(int dirfd, const std::string& name, const nlohmann::json& report) {
  // Names in the report can come from the sandbox (a left-behind file's path): invalid UTF-8 is
  // replaced, never a reason for the report not to be written.
  const std::string text = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return sys::write_file_at(dirfd, name, text, 0644);
}

Result<void> write_report_file(const std::string& path, const nlohmann::json& report) {
  auto parts = sys::split_file_path(path);
  if (!parts) return std::move(parts).take_error();
  auto dir = sys::open_dir_no_symlinks(parts->first);
  if (!dir) return std::move(dir).take_error();
  if (auto w = write_report_at(dir->get(), parts->second, report); !w) {
    Error e = w.error();
    e.where = path;
    return e;
  }
  return ok_result();
}

}  // namespace paddock
