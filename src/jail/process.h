// Running a host program (git) for the jail's bookkeeping, with its output captured. Only for
// programs paddock itself chooses; never for anything a sandbox wrote.
#pragma once

#include <string>
#include <vector>

#include "paddock/result.h"

namespace paddock::jail {

struct ProcessResult {
  int status = 0;  // exit code, 128+N for signal N
  std::string out, err;
};

// Runs ARGV (argv[0] looked up in PATH) in CWD with ENV added to (and overriding) this process's
// environment. Fails only when it cannot be started.
// With replace_env, ENV is the whole environment. INPUT, when given, is the child's stdin (else
// /dev/null).
Result<ProcessResult> run_process(const std::vector<std::string>& argv, const std::string& cwd,
                                  const std::vector<std::string>& env = {}, bool replace_env = false,
                                  const std::string* input = nullptr);

// git on the host, hardened against what a sandbox could have written in the repository: no
// system config, hooks off, no fsmonitor, no pager, no external diff, no prompts.
Result<ProcessResult> run_git(const std::vector<std::string>& args, const std::string& cwd,
                              std::vector<std::string> env = {});
// The stdout of git ARGS that ran as R, or, when it exited non-zero, an error quoting its stderr
// (WHERE names the repository or directory).
Result<std::string> git_output(Result<ProcessResult> r, const std::vector<std::string>& args, const std::string& where);

// run_git that fails (with git's stderr) on a non-zero exit; returns stdout.
Result<std::string> git_ok(const std::vector<std::string>& args, const std::string& cwd,
                           std::vector<std::string> env = {});

}  // namespace paddock::jail
