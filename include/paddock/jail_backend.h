// The Jail interface (issue 15): one way to run a command in a jail's workspace, whatever runs
// it. `native` is paddock's own engine (namespaces + Landlock + seccomp + egress filter +
// limits, src/engine/); `bubblewrap` and `systemd-run` render the same Policy for hosts where
// those are required, with fewer guarantees, which `guarantees()` lists (docs/jails.md#backends).
//
// Secrets never appear on a command line or in a unit property: bubblewrap gets them in its
// environment (readable only by the same user), systemd-run as credentials from 0600 files
// (LoadCredential=), turned into environment variables inside.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "paddock/policy.h"
#include "paddock/result.h"
#include "paddock/sandbox.h"

namespace paddock::jail {

struct Workspace {
  std::string path;      // where the command starts (the policy's cwd)
  std::string home_dir;  // a host directory bound at HOME; empty: a fresh one
  std::vector<SandboxMount> mounts;  // an overlay workspace
};

struct RunOpts {
  Workspace workspace;
  std::vector<std::string> command;
  std::vector<std::string> env;  // NAME=VALUE added to the policy's environment
  std::vector<std::pair<std::string, std::string>> secrets;  // NAME, VALUE: never on a command line
  // systemd-run: where the credential files are written (a directory only the user can enter);
  // default $XDG_RUNTIME_DIR, else /tmp.
  std::string secrets_dir;
  // The environment the policy's is built from; default: this process's.
  std::optional<std::vector<std::string>> host_env;
};

// What a backend would execute: the program, its arguments and environment, and files it needs
// written first (systemd-run's credentials, mode 0600).
struct Command {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  struct File {
    std::string path, content;
  };
  std::vector<File> files;
};

// Runs a rendered Command. Tests record instead (RecordingRunner).
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  struct Output {
    int status = 0;  // exit code, 128+N for signal N
    std::string out;
  };
  // capture: stdout captured and returned; otherwise stdio is inherited.
  virtual Result<Output> run(const Command& c, bool capture) = 0;
};
std::shared_ptr<CommandRunner> real_runner();

class RecordingRunner : public CommandRunner {
 public:
  Result<Output> run(const Command& c, bool capture) override {
    (void)capture;
    commands.push_back(c);
    return Output{0, output};
  }
  std::vector<Command> commands;
  std::string output;  // what run() returns as captured stdout
};

class Jail {
 public:
  virtual ~Jail() = default;
  virtual std::string_view name() const = 0;
  // The command this backend would execute for POLICY and OPTS.
  virtual Result<Command> render(const Policy& policy, const RunOpts& opts) const = 0;
  // paddock guarantees this backend does not give ("Landlock", "seccomp denylist", ...).
  virtual std::vector<std::string> missing_guarantees(const Policy& policy) const = 0;
  // stdout/stderr connected to the terminal; returns the exit code.
  virtual Result<int> run(const Policy& policy, const RunOpts& opts) = 0;
  // stdout captured.
  virtual Result<std::string> run_capture(const Policy& policy, const RunOpts& opts) = 0;
};

// What `systemd-run --user` needs from the host: systemd as PID 1 and the user manager's bus
// (DBUS_SESSION_BUS_ADDRESS, or the socket $XDG_RUNTIME_DIR/bus). A shell from su, sudo or cron
// has neither variable, and systemd-run then only says "Failed to connect to bus".
struct SystemdHost {
  bool systemd_running = false;     // /run/systemd/system exists
  std::string bus_address;          // DBUS_SESSION_BUS_ADDRESS
  std::string runtime_dir;          // XDG_RUNTIME_DIR
  bool runtime_bus_exists = false;  // $XDG_RUNTIME_DIR/bus is a socket
};
SystemdHost systemd_host_now();
// Nothing when systemd-run --user can reach a user manager; otherwise why not and what to do.
Result<void> systemd_user_manager(const SystemdHost& host);

// "native" (the default), "bubblewrap" or "systemd-run"; any other name is an error.
// A backend made with the real runner (RUNNER null) checks the host before it runs anything; one
// given a runner (a RecordingRunner in tests) runs nothing on the host and checks nothing.
Result<std::unique_ptr<Jail>> make_jail(std::string_view backend, std::shared_ptr<CommandRunner> runner = nullptr);
std::vector<std::string> backend_names();

}  // namespace paddock::jail
