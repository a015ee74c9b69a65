// Helpers for the kernel tests (tests/integration, tests/escape): temporary directories, running
// the real `paddock` binary with a fake HOME, and the probe that runs inside sandboxes.
//
// Environment (set by scripts/run-as.sh): PADDOCK_BIN, PADDOCK_PROBE, PADDOCK_TEST_AS=root|unprivileged.
// Tests never touch the real HOME: every run gets a fake HOME and a temporary project as its cwd.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ktest {

// A directory under /tmp (or at PREFIX.XXXXXX when PREFIX is absolute), removed recursively (whatever modes were set inside) on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "paddock-kt");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void remove_tree(const std::string& path);
// Writes `content` to `path`, creating parent directories (mode 0755). Aborts the test on failure.
void write_file(const std::string& path, const std::string& content, mode_t mode = 0644);
std::string read_file(const std::string& path);  // "" when unreadable
bool exists(const std::string& path);            // lstat succeeds
void make_dirs(const std::string& path, mode_t mode = 0755);

struct Proc {
  int code = -1;     // shell-style: exit code, or 128+N for death by signal N
  int status = 0;    // raw wait status
  bool timed_out = false;
  std::string out, err;
  pid_t pid = 0;
  double seconds = 0;
};

struct RunOpts {
  std::string cwd;                                     // default: the current directory
  std::map<std::string, std::string> env;              // set or override
  std::vector<std::string> unset;                      // remove from the environment
  std::optional<std::string> stdin_data;               // default: /dev/null
  std::chrono::milliseconds timeout{60000};            // then SIGKILL, timed_out = true
  std::vector<int> keep_fds;                           // fds left open (not CLOEXEC) in the child
};

// Runs argv (argv[0] a path) with output captured. The environment is this process's, plus opts.
Proc run(const std::vector<std::string>& argv, const RunOpts& opts = {});

// A process started in the background with output captured; finish() waits and collects.
class Started {
 public:
  Started() = default;
  Started(Started&& o) noexcept;
  Started& operator=(Started&&) = delete;
  ~Started();
  pid_t pid() const { return pid_; }
  // Reads what is available on stdout so far without blocking for longer than `wait`.
  std::string read_out(std::chrono::milliseconds wait);
  // Waits until stdout contains `needle` (or the timeout): returns whether it did.
  bool wait_for_out(const std::string& needle, std::chrono::milliseconds timeout);
  Proc finish(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

 private:
  friend Started start(const std::vector<std::string>&, const RunOpts&);
  pid_t pid_ = 0;
  int out_ = -1, err_ = -1;
  std::string out_buf_, err_buf_;
  std::chrono::steady_clock::time_point started_;
};
Started start(const std::vector<std::string>& argv, const RunOpts& opts = {});

// Environment knobs.
bool is_root();                   // PADDOCK_TEST_AS=root (or euid 0 when unset)
std::string paddock_bin();        // PADDOCK_BIN; "" when unset
std::string probe_bin();          // PADDOCK_PROBE; "" when unset
const char* test_as();            // "root" or "unprivileged"

// A fake user world for one test: root/ holds a fake HOME with a planted SSH key and AWS
// credentials, and a project inside that HOME with a copy of the probe (the host's /tmp, where
// PADDOCK_PROBE lives, is invisible inside). Runs get HOME=home and cwd=project.
struct World {
  World();
  TempDir root;
  std::string home;     // root/home
  std::string project;  // root/home/proj
  std::string probe;    // project/paddock-probe (same path inside)
  std::string ssh_key;  // home/.ssh/id_ed25519, content kSecret
  std::string aws_creds;  // home/.aws/credentials
  static constexpr const char* kSecret = "PADDOCK-TEST-SECRET-KEY";

  // The environment paddock runs with: HOME=home, XDG_CONFIG_HOME=home/.config.
  RunOpts opts() const;
  // The same with paddock's state in this HOME (XDG_STATE_HOME unset): its undo store, its jails.
  RunOpts state_opts() const;
  // `paddock ARGS...` from the project with this world's HOME.
  Proc paddock(const std::vector<std::string>& args, RunOpts o) const;
  Proc paddock(const std::vector<std::string>& args) const { return paddock(args, opts()); }
  // `paddock run FLAGS... -- probe PROBE_ARGS...`
  Proc probe_run(const std::vector<std::string>& flags, const std::vector<std::string>& probe_args) const;
  Proc probe_run(const std::vector<std::string>& probe_args) const { return probe_run({}, probe_args); }
  // `paddock run FLAGS... -- sh -c SCRIPT`
  Proc sh(const std::string& script, const std::vector<std::string>& flags = {}) const;
};

// Skips the current test (from a TEST body) unless the binaries are there.
#define KTEST_REQUIRE_BINARIES()                                                          \
  do {                                                                                    \
    if (::ktest::paddock_bin().empty() || ::ktest::probe_bin().empty())                   \
      GTEST_SKIP() << "PADDOCK_BIN/PADDOCK_PROBE not set: run through scripts/run-as.sh"; \
  } while (0)

// For assertions: a run's output, for failure messages.
std::string describe(const Proc& p);

bool contains(const std::string& haystack, const std::string& needle);
std::vector<std::string> split_lines(const std::string& s);

// Host processes whose /proc/PID/cmdline contains `marker` (to find leftovers of a sandbox).
std::vector<pid_t> host_pids_with(const std::string& marker);

// The highest Landlock ABI this kernel offers (0 when none).
int landlock_abi();
// Whether unprivileged user namespaces work here (the fallback mode runs otherwise).
bool user_namespaces_work();

}  // namespace ktest
