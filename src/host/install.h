// paddock host install / check / uninstall / explain (docs/host.md).
//
// install is idempotent and records in a manifest (JSON, root's) exactly what it created or
// changed: the agent's group and user, directories, the mode and owner it took from the real
// binary (or its hide_dir), the wrapper and the sudoers drop-in with their contents. uninstall
// undoes exactly those entries, newest first, and leaves alone what was there before and what an
// administrator changed since (it says so).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/config.h"
#include "host/users.h"
#include "paddock/result.h"

namespace paddock::host {

struct InstallOptions {
  bool dry_run = false;
  std::FILE* out = stdout;  // one line per change ("+ ..." done or, with dry_run, to be done)
};

Result<void> install(const HostConfig& cfg, const InstallOptions& opt);

struct UninstallOptions {
  bool dry_run = false;
  bool keep_state = false;  // leave the agents' state directories (the users' sessions and logins)
  std::FILE* out = stdout;
};
// MANIFEST is the file install wrote ([host] manifest of the config it used).
Result<void> uninstall(const std::string& manifest, const UninstallOptions& opt);

struct Finding {
  enum class Level { Ok, Warn, Fail };
  Level level = Level::Ok;
  std::string text;
};
// Everything install should have made so, checked now (as root: the bypass checks run as each
// host user). Fail findings make `paddock host check` exit 1.
std::vector<Finding> check(const HostConfig& cfg, const UserDb& db);

// The text of `paddock host explain` for the invoking user (no privileges needed).
Result<std::string> explain(const HostConfig& cfg, const std::string& agent_filter, const UserDb& db);

// Runs a system tool (groupadd, useradd, visudo, ...) with an absolute path; its stderr is in
// the error.
Result<void> run_tool(const std::vector<std::string>& argv);

}  // namespace paddock::host
