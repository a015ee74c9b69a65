// The resource-limit flags of `paddock run` (--memory, --pids, --cpu, --timeout, --tmp-size,
// --home-size, --max-file-size, --max-open-files, --core-dumps, --best-effort-limits, --report)
// and the footer lines that name a limit a run hit. See docs/limits.md.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock::cli {

// Raw flag values; empty means "not given" (the profile's value, if any, stays).
// "unlimited" removes a limit the profile set.
struct LimitFlags {
  std::string memory, pids, cpu, timeout;
  std::string tmp_size, shm_size, home_size, max_file_size, max_open_files;
  bool core_dumps = false;
  bool best_effort = false;
  std::string report;  // --report FILE
};

void add_limit_flags(CLI::App* cmd, LimitFlags& f);

// Parses the flags into the builder's limits, over what the profile set. A bad size, number or
// duration is an error naming the flag and the value.
Result<void> apply_limit_flags(const LimitFlags& f, PolicyBuilder& b);

// Lines for the [paddock] footer naming each limit the run hit, with the flag that raises it:
// "killed: memory limit 2G reached — raise with --memory".
std::vector<std::string> limit_footer_lines(const RunResult& r);

}  // namespace paddock::cli
