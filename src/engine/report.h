// The run report: what happened in one sandboxed run, as stable, versioned JSON
// ("paddock.report/1", documented in docs/report.md). Built from the RunResult and the policy;
// written crash-safely (temp file, fsync, rename) for `paddock run --report FILE`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock {

inline constexpr const char* kReportVersion = "paddock.report/1";

// One egress-filter decision as the report's `network` array and `paddock run --net-log` write it.
nlohmann::json network_decision_json(const NetworkDecision& d);

// `argv` (the command as given) is recorded when not empty.
nlohmann::json run_report(const RunResult& result, const Policy& policy,
                          const std::vector<std::string>& argv = {});

// Writes `report` (pretty-printed, newline-terminated) to `path`: a temp file in the same
// directory, fsync, rename over `path`, fsync of the directory. Never leaves a torn file.
// Written temp + fsync + rename + directory fsync, in a directory opened with no symlink followed.
Result<void> write_report_file(const std::string& path, const nlohmann::json& report);
// The same into DIRFD (opened before the run by sys::open_dir_no_symlinks): the name is resolved
// relative to it, so a directory swapped for a symlink meanwhile does not redirect the write.
Result<void> write_report_at(int dirfd, const std::string& name, const nlohmann::json& report);

}  // namespace paddock
