#include "cli/limit_flags.h"

#include <signal.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "cli/arg_values.h"
#include "policy/units.h"

namespace paddock::cli {
namespace {

constexpr const char* kDash = "\u2014";  // em dash, as in the other footer lines

bool is_unlimited(const std::string& v) {
  std::string l;
  for (char c : v) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "unlimited" || l == "none" || l == "off";
}

Error flag_error(const char* flag, Error e) {
  e.where = flag;
  return e;
}

// Applies a size flag: "", "unlimited", or a size of at least `min` bytes.
Result<void> size_flag(const char* flag, const std::string& v, std::uint64_t min,
                       std::optional<std::uint64_t>& out) {
  if (v.empty()) return ok_result();
  if (is_unlimited(v)) {
    out.reset();
    return ok_result();
  }
  auto s = parse_size(v);
  if (!s) return flag_error(flag, s.error());
  if (*s < min)
    return make_error("\"" + v + "\" is too small (at least " + format_size(min) + ")", flag);
  out = *s;
  return ok_result();
}

Result<void> count_flag(const char* flag, const std::string& v, std::optional<std::uint64_t>& out) {
  if (v.empty()) return ok_result();
  if (is_unlimited(v)) {
    out.reset();
    return ok_result();
  }
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc::result_out_of_range) return make_error("\"" + v + "\" is too large", flag);
  if (ec != std::errc() || p != v.data() + v.size())
    return make_error("\"" + v + "\" is not a whole number", flag, "e.g. " + std::string(flag) + " 256");
  if (n == 0) return make_error("must be at least 1, not 0", flag);
  out = n;
  return ok_result();
}

const LimitReport* find(const RunResult& r, const char* name) {
  for (const LimitReport& l : r.limits)
    if (l.name == name) return &l;
  return nullptr;
}

}  // namespace

void add_limit_flags(CLI::App* cmd, LimitFlags& f) {
  const char* group = "Limits";
  auto text = [&](const char* name, std::string& var, const char* placeholder, const char* help) {
    values(cmd->add_option(name, var, help), ValueKind::Text, placeholder)->group(group);
  };
  text("--memory", f.memory, "SIZE", "Memory (RAM and swap together) for the whole run: 512M, 2G");
  text("--pids", f.pids, "N",
       "Processes and threads at once, for the whole run: 256 (without it a built-in ceiling of 4096 applies; "
       "unlimited removes both)");
  text("--cpu", f.cpu, "CORES", "Cores' worth of CPU time: 0.5, 1.5, 4");
  text("--timeout", f.timeout, "DURATION", "Wall clock for the whole run, then SIGTERM, a short grace, SIGKILL: 90s, 30m, 1h30m");
  text("--tmp-size", f.tmp_size, "SIZE", "Size of the private /tmp: 512M");
  text("--shm-size", f.shm_size, "SIZE", "Size of the private /dev/shm (default 64M, at most --memory)");
  text("--home-size", f.home_size, "SIZE", "Size of the fresh HOME: 1G");
  text("--max-file-size", f.max_file_size, "SIZE", "Largest file the command may write: 1G");
  text("--max-open-files", f.max_open_files, "N", "Open files per process: 1024");
  cmd->add_flag("--core-dumps", f.core_dumps, "Allow core dumps (off by default)")->group(group);
  cmd->add_flag("--best-effort-limits", f.best_effort,
                "Run even when a limit cannot be enforced here (the report and a warning say which)")
      ->group(group);
  values(cmd->add_option("--report", f.report, "Write a JSON run report to FILE (docs/report.md)"), ValueKind::File,
         "FILE")
      ->group(group);
}

Result<void> apply_limit_flags(const LimitFlags& f, PolicyBuilder& b) {
  Limits& l = b.mutable_limits();
  if (auto r = size_flag("--memory", f.memory, 1u << 20, l.memory_bytes); !r) return r;
  if (auto r = count_flag("--pids", f.pids, l.pids); !r) return r;
  if (is_unlimited(f.pids)) l.pids_ceiling.reset();  // no limit means no built-in ceiling either
  if (!f.cpu.empty()) {
    if (is_unlimited(f.cpu)) {
      l.cpu.reset();
    } else {
      double c = 0;
      auto [p, ec] = std::from_chars(f.cpu.data(), f.cpu.data() + f.cpu.size(), c);
      if (ec != std::errc() || p != f.cpu.data() + f.cpu.size() || !std::isfinite(c))
        return make_error("\"" + f.cpu + "\" is not a number of cores", "--cpu", "e.g. --cpu 0.5 or --cpu 2");
      if (c < 0.01) return make_error("\"" + f.cpu + "\" is too small (at least 0.01 cores)", "--cpu");
      l.cpu = c;
    }
  }
  if (!f.timeout.empty()) {
    if (is_unlimited(f.timeout)) {
      l.timeout.reset();
    } else {
      auto d = parse_duration(f.timeout);
      if (!d) return flag_error("--timeout", d.error());
      if (d->count() <= 0) return make_error("\"" + f.timeout + "\" is not a positive duration", "--timeout");
      l.timeout = *d;
    }
  }
  if (auto r = size_flag("--tmp-size", f.tmp_size, 1u << 20, l.tmp_size_bytes); !r) return r;
  if (auto r = size_flag("--shm-size", f.shm_size, 1u << 20, l.shm_size_bytes); !r) return r;
  if (auto r = size_flag("--home-size", f.home_size, 1u << 20, l.home_size_bytes); !r) return r;
  if (auto r = size_flag("--max-file-size", f.max_file_size, 1, l.max_file_size_bytes); !r) return r;
  if (auto r = count_flag("--max-open-files", f.max_open_files, l.max_open_files); !r) return r;
  if (f.core_dumps) l.core_dumps = true;
  if (f.best_effort) l.best_effort = true;
  return ok_result();
}

std::vector<std::string> limit_footer_lines(const RunResult& r) {
  std::vector<std::string> out;
  auto requested = [&](const char* name) {
    const LimitReport* l = find(r, name);
    return l ? l->requested : std::string();
  };
  if (r.oom) {
    const std::string m = requested("memory");
    out.push_back("killed: memory limit " + (m.empty() ? std::string() : m + " ") + "reached " + kDash +
                  " raise with --memory");
  }
  if (r.timed_out) {
    out.push_back("timed out after " + requested("timeout") + " " + kDash + " raise with --timeout");
    if (const LimitReport* c = find(r, "cpu"); c && c->hit)
      out.push_back("the cpu limit " + c->requested + " slowed it down " + kDash + " raise with --cpu");
  }
  if (const LimitReport* p = find(r, "pids"); p && p->hit)
    out.push_back("process limit " + p->requested + " reached (fork failed) " + kDash + " raise with --pids");
  if (const LimitReport* p = find(r, "pids-ceiling"); p && p->hit)
    out.push_back("process ceiling " + p->requested + " reached (fork failed) " + kDash +
                  " set a larger limit with --pids");
  if (const LimitReport* f = find(r, "max-file-size"); f && f->hit) {
    const bool killed = r.status == RunResult::Status::Signaled && r.signal == SIGXFSZ;
    out.push_back(std::string(killed ? "killed: " : "") + "file size limit " + f->requested + " reached" +
                  (killed ? " " : " (a write failed) ") + kDash + " raise with --max-file-size");
  }
  const bool failed = !(r.status == RunResult::Status::Exited && r.exit_code == 0);
  if (failed && !r.oom) {
    if (const LimitReport* m = find(r, "memory"); m && m->enforced_by == "rlimit RLIMIT_DATA")
      out.push_back("memory limit " + m->requested +
                    " applies to each process's heap and private memory here (no cgroup); an allocation "
                    "failure may come from it " + kDash + " raise with --memory");
    else if (m && m->hit)
      out.push_back("memory limit " + m->requested + " was reached (memory was reclaimed) " + kDash +
                    " raise with --memory");
  }
  return out;
}

}  // namespace paddock::cli
