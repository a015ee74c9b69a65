#include <signal.h>

#include <cstring>

#include "engine/plan.h"
#include "paddock/sandbox.h"

namespace paddock {

int RunResult::shell_code() const {
  switch (status) {
    case Status::Exited: return exit_code;
    case Status::Signaled: return 128 + signal;
    case Status::SetupFailed: return 125;
    case Status::NotFound: return 127;
    case Status::NotExecutable: return 126;
  }
  return 125;
}

std::string RunResult::failure_message() const {
  auto reason = [&] { return setup_errno ? std::string(std::strerror(setup_errno)) : std::string("failed"); };
  switch (status) {
    case Status::SetupFailed:
      return "sandbox setup failed: " + setup_step + (setup_detail.empty() ? "" : " " + setup_detail) + ": " + reason();
    case Status::NotFound: return setup_detail + ": command not found";
    case Status::NotExecutable: return setup_detail + ": cannot execute: " + reason();
    default: return "";
  }
}

namespace engine {

void Plan::finalize_exec_arrays() {
  argv.clear();
  envp.clear();
  for (std::string& s : argv_storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (std::string& s : envp_storage) envp.push_back(s.data());
  envp.push_back(nullptr);
}

}  // namespace engine
}  // namespace paddock
