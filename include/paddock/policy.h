// The capability set: what a sandboxed command may touch. Built by PolicyBuilder (one builder,
// one error), explained by `why`, turned into a plan by the engine. No syscalls happen here
// except the path resolution the builder does through a FsView.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "paddock/result.h"
#include "paddock/state.h"

namespace paddock {

// Read grants read and execute; Write grants create/modify/delete without read; ReadWrite both.
enum class Access : std::uint8_t { None = 0, Read = 1, Write = 2, ReadWrite = 3 };
std::string_view to_string(Access a);          // "read", "write", "read+write", "none"
Result<Access> parse_access(std::string_view);  // inverse of to_string; also "ro", "rw"
inline bool grants(Access have, Access want) {
  return (static_cast<int>(have) & static_cast<int>(want)) == static_cast<int>(want);
}

enum class Op { Read, Write, Exec };
std::string_view to_string(Op op);
Result<Op> parse_op(std::string_view);

// Where a rule came from, for `why`, the footer and the JSON policy.
struct Origin {
  enum class Kind { BuiltIn, Profile, Flag, Cwd };
  Kind kind = Kind::BuiltIn;
  std::string detail;  // "--allow ../lib", "profile default", "/home/u/.config/paddock/profiles/x.toml:4:9"
};

// A filesystem grant. Paths keep their host names inside the sandbox.
struct PathRule {
  std::string path;   // absolute and canonical: symlinks resolved by the builder
  std::string given;  // as written by the user or profile, for messages
  Access access = Access::Read;
  Origin origin;
  bool optional = false;  // system paths that may be absent (/nix/store, /lib32): skipped if missing
  // Set for built-in system entries that are symlinks on the host (/bin -> /usr/bin on merged-/usr
  // systems): `path` is the link itself and this is its canonical absolute target. The engine
  // recreates the symlink inside the sandbox instead of binding; the target is covered by its own rule.
  std::string symlink_target;
};

// A sensitive path (credentials, keyrings, browser profiles, ...) hidden even inside an allowed
// parent, unless a rule names exactly this path. The list lives in src/policy/sensitive_paths.cc.
struct DeniedPath {
  std::string path;    // absolute
  std::string reason;  // "SSH keys and config"
};

// A file or directory that the host executes later on the user's behalf (VCS hooks, direnv,
// editor tasks, shell rc files). Kept read-only inside writable areas unless a rule names exactly
// this path. The list lives in src/policy/protected_paths.cc.
struct ProtectedPath {
  std::string path;    // absolute
  std::string reason;  // "git hooks run by git on the host"
  bool exists = true;  // absent ones are watched: paddock warns if the sandbox creates them
};

enum class NetMode {
  Off,       // own network namespace, loopback only (default)
  Host,      // share the host network (--allow-net)
  Filtered,  // own namespace + egress filter with a domain allowlist (see docs/network.md)
};
std::string_view to_string(NetMode m);

struct NetworkPolicy {
  NetMode mode = NetMode::Off;
  std::vector<std::string> allow_domains;  // "host", "*.domain", "host:port"
  std::vector<std::string> deny_domains;
  // Where each entry came from ("file:line:col" of a profile), index for index; "" or missing
  // when unknown. Not part of the policy JSON: only for error messages.
  std::vector<std::string> allow_where, deny_where;
};

// The environment is scrubbed to a documented safe set (src/policy/env_policy.cc) plus these.
struct EnvPolicy {
  std::vector<std::string> pass;                          // names passed from the parent
  std::vector<std::pair<std::string, std::string>> set;  // NAME=VALUE set explicitly
};

// The built-in process ceiling every run gets unless --pids says otherwise (Limits::pids_ceiling).
inline constexpr std::uint64_t kDefaultPidsCeiling = 4096;

// Resource limits. Enforced by the engine (cgroups, rlimits, tmpfs sizes); see docs/limits.md.
struct Limits {
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::uint64_t> pids;
  // Built-in safety ceiling on processes and threads alive at once, used when `pids` is unset:
  // enforced by the cheapest bound the host has (the sandbox's own pid namespace's pid_max,
  // RLIMIT_NPROC, or a pids cgroup) and never a reason to refuse a run. `--pids unlimited`
  // clears it. docs/limits.md#defaults
  std::optional<std::uint64_t> pids_ceiling = kDefaultPidsCeiling;
  std::optional<double> cpu;  // cores' worth of CPU time
  std::optional<std::chrono::milliseconds> timeout;
  std::optional<std::uint64_t> tmp_size_bytes;
  // The private /dev/shm (issue 18, item 3). Unset: kDefaultShmSize, at most memory_bytes
  // (shm_size_for). Unprivileged, the rlimit fallback of --memory does not count tmpfs pages, so
  // /dev/shm needs a size of its own.
  std::optional<std::uint64_t> shm_size_bytes;
  std::optional<std::uint64_t> home_size_bytes;
  std::optional<std::uint64_t> max_file_size_bytes;
  std::optional<std::uint64_t> max_open_files;
  bool core_dumps = false;
  bool best_effort = false;  // --best-effort-limits: run even if a limit cannot be enforced
};

inline constexpr std::uint64_t kDefaultShmSize = 64ull << 20;
// The size the sandbox's /dev/shm gets for these limits.
inline std::uint64_t shm_size_for(const Limits& l) {
  std::uint64_t s = l.shm_size_bytes ? *l.shm_size_bytes : kDefaultShmSize;
  if (!l.shm_size_bytes && l.memory_bytes && *l.memory_bytes < s) s = *l.memory_bytes;
  return s;
}

struct Policy {
  std::string cwd;   // canonical host path; the sandbox starts here
  std::string home;  // HOME inside the sandbox (the host's HOME path; a fresh tmpfs by default)
  std::string user;  // USER / LOGNAME inside
  std::vector<PathRule> paths;  // in the order they were added; later duplicates replace earlier
  std::vector<DeniedPath> denied;
  std::vector<ProtectedPath> protected_paths;
  NetworkPolicy network;
  EnvPolicy env;
  Limits limits;
  bool require_namespaces = false;
  // Writes outside every host-backed path (the fresh HOME's own tmpfs) fail instead of being
  // discarded at exit: that tmpfs is read-only but for the rules bound into it (/tmp stays private
  // scratch). Default false: they are written, discarded, and listed (RunResult::discarded).
  bool refuse_discarded_writes = false;
  std::string profile;               // name of the profile the policy came from
  std::vector<std::string> notes;    // things the builder noticed (skipped optional paths, ...)

  const PathRule* find_rule(std::string_view path) const;  // exact match on path
};

// How the builder sees the host filesystem. Tests give it a fake tree.
class FsView {
 public:
  virtual ~FsView() = default;
  enum class Kind { Missing, File, Dir, Other };
  // Resolves symlinks component by component (like realpath). Error if the path is missing.
  virtual Result<std::string> canonical(const std::string& abs_path) const = 0;
  virtual Kind kind(const std::string& abs_path) const = 0;  // does not follow a final symlink

  struct DirEntry {
    std::string name;
    Kind kind = Kind::Other;  // as kind() would say: File, Dir or Other (symlinks, devices, ...)
    bool known = true;        // false when the directory did not tell (ask kind())
  };
  // All entries of a canonical directory in one read, for a caller about to ask kind() about
  // many of them. nullopt when it cannot (unreadable, very large, not implemented): ask kind().
  virtual std::optional<std::vector<DirEntry>> list(const std::string& abs_dir) const {
    (void)abs_dir;
    return std::nullopt;
  }
};
std::shared_ptr<FsView> real_fs();

// The facts about the invoking user that defaults depend on. `from_process()` reads them.
struct HostContext {
  std::string cwd;
  std::string home;  // $HOME (absolute), else the passwd entry's home
  // The passwd entry's home when it is not `home` ($HOME points elsewhere); empty otherwise.
  // Its secrets are on the sensitive list too: a rule on the real home must not expose them.
  std::string passwd_home;
  std::string user;
  unsigned uid = 0;
  unsigned gid = 0;
  // Where paddock keeps this user's own state (paddock/state.h), which no sandbox of a policy
  // built from this context may see, however `home` is changed afterwards (MCP's /workspace).
  // from_process() fills it from the environment; left empty (a context made by hand), the
  // builder takes state_layout() of `uid` and `home`.
  StateLayout state;
  std::shared_ptr<FsView> fs;
  static Result<HostContext> from_process();
};

// Expands "~" and "~/x" against home, resolves relative paths against cwd, normalises "." and "..".
// No filesystem access.
std::string absolute_path(std::string_view given, const HostContext& ctx);

// A profile's [undo] table (docs/undo.md): read by `paddock run`, not part of the policy itself.
struct UndoSettings {
  std::optional<bool> enabled;
  std::optional<bool> default_excludes;  // node_modules, target, .venv
  std::vector<std::string> excludes;     // names, or paths relative to each writable root
  std::optional<std::uint64_t> max_checkpoints;  // `paddock checkpoint` snapshots per run (default 500)
  std::optional<std::uint64_t> max_bytes;        // what those may add to the store together (default 1 GiB)
  std::optional<std::uint64_t> store_quota;      // the store's size past which a run says to prune (10 GiB)
};

class PolicyBuilder {
 public:
  explicit PolicyBuilder(HostContext ctx);

  // Filesystem rules (repeatable). Relative paths resolve against the cwd; "~" against HOME.
  PolicyBuilder& allow(std::string_view path, Access access, Origin origin);
  // Like allow(), but a missing path is skipped with a note instead of failing the build
  // (profiles: "~/.claude if present").
  PolicyBuilder& allow_optional(std::string_view path, Access access, Origin origin);
  // The cwd's access (default ReadWrite). Access::None leaves the cwd out of the policy.
  PolicyBuilder& cwd_access(Access access, Origin origin = {Origin::Kind::Cwd, "current directory"});
  // A profile file this policy was read from (the profile and each file it extends). build()
  // refuses one the sandbox of this very policy could write, directly or through any directory
  // or symlink on its path: the sandbox must not be able to choose the next run's policy.
  PolicyBuilder& profile_file(std::string_view path, std::string_view where);
  // A directory under HOME that the run creates (mode 0700, with its missing parents) before the
  // policy is built, when it is missing: an agent's state directory, so that its login and trust
  // decisions persist across runs (a profile's [filesystem] create). It grants nothing; the
  // profile's rules do. Only `paddock run` creates (create_state_dirs); `why` does not.
  PolicyBuilder& create_dir(std::string_view path, Origin origin);
  // A file under HOME that the run creates (mode 0600, its parent as create_dir) with CONTENT when
  // it is missing: an agent's state file that must exist for its writes to be kept (a profile's
  // [filesystem] create_files). Never replaces an existing file; grants nothing.
  PolicyBuilder& create_file(std::string_view path, std::string content, Origin origin);
  struct FileToCreate {
    std::string path;  // absolute, lexically normal
    std::string content;
    Origin origin;
  };
  std::vector<FileToCreate> files_to_create() const;
  struct DirToCreate {
    std::string path;  // absolute, lexically normal
    Origin origin;
  };
  std::vector<DirToCreate> dirs_to_create() const;
  // How a profile adjusts its agent's command line (a profile's [command]): when the command's
  // name (the last component of argv[0]) is `name`, `args` go right after it, so that settings the
  // agent reads only from its command line apply inside paddock alone (Codex: paddock is its
  // sandbox). `conflicts` ("FLAG" or "FLAG VALUE") are choices on the user's own command line that
  // will not work inside paddock; each one found is warned about with `conflict_message`.
  // The user's command line always wins: args go before the user's arguments.
  struct CommandSetup {
    std::string name;
    std::vector<std::string> args;
    std::vector<std::string> conflicts;
    std::string conflict_message;
    Origin origin;
  };
  PolicyBuilder& command_setup(CommandSetup setup);
  const std::optional<CommandSetup>& command_setup() const { return command_setup_; }
  // Leave out the built-in system paths (/usr, /etc, ...). For tests and special profiles only.
  PolicyBuilder& no_system_defaults();
  PolicyBuilder& network(NetMode mode);
  // `where` ("file:line:col") is named in any error about the pattern, now or when the egress
  // filter parses it at run time.
  PolicyBuilder& allow_domain(std::string_view pattern, std::string_view where = {});
  PolicyBuilder& deny_domain(std::string_view pattern, std::string_view where = {});
  PolicyBuilder& pass_env(std::string_view name);
  PolicyBuilder& set_env(std::string_view name, std::string_view value);
  PolicyBuilder& limits(const Limits& l);
  Limits& mutable_limits() { return limits_; }
  UndoSettings& mutable_undo() { return undo_; }
  // A profile's [footer] quiet = true: no [paddock] footer after a failed run (like --quiet-footer).
  PolicyBuilder& quiet_footer(bool on) {
    quiet_footer_ = on;
    return *this;
  }
  bool footer_is_quiet() const { return quiet_footer_; }
  const UndoSettings& undo_settings() const { return undo_; }
  PolicyBuilder& require_namespaces(bool on = true);
  PolicyBuilder& refuse_discarded_writes(bool on = true);  // Policy::refuse_discarded_writes
  // The current directory is one paddock made inside its own state for this run (a jail's
  // workspace): allowed strictly inside the jail store (StateLayout::jails_dir), where a user's
  // own `cd` is refused; the rest of the state stays masked around it.
  PolicyBuilder& cwd_is_jail_workspace(bool on = true);
  // A directory no sandbox of this policy may see (paddock host: an agent's state, which holds
  // every host user's part; REASON says so): masked wherever a rule shows it, and no rule at it or
  // above lifts that. Rules strictly inside it (the user's own part) are bound over the mask. The
  // current directory may not lie inside it.
  PolicyBuilder& hide(std::string_view path, std::string_view reason);
  PolicyBuilder& profile_name(std::string_view name);
  // Records an error found by a caller (e.g. a profile) so build() reports it.
  PolicyBuilder& fail(Error e);

  // Validates and resolves everything. The first error wins; nothing half-valid escapes.
  Result<Policy> build() const;

  const HostContext& context() const { return ctx_; }
  // The network as set so far (a profile's, before flags change it).
  const NetworkPolicy& network_policy() const { return network_; }

 private:
  struct PendingRule {
    std::string given;
    Access access;
    Origin origin;
    bool optional = false;
  };
  HostContext ctx_;
  std::vector<PendingRule> rules_;
  std::vector<PendingRule> create_;
  std::vector<std::pair<PendingRule, std::string>> create_files_;
  std::optional<CommandSetup> command_setup_;
  std::vector<std::pair<std::string, std::string>> profile_files_;  // path, where
  std::optional<Access> cwd_access_;
  Origin cwd_origin_{Origin::Kind::Cwd, "current directory"};
  bool cwd_explicit_ = false;
  bool system_defaults_ = true;
  NetworkPolicy network_;
  EnvPolicy env_;
  Limits limits_;
  UndoSettings undo_;
  bool quiet_footer_ = false;
  bool require_namespaces_ = false;
  bool refuse_discarded_writes_ = false;
  bool cwd_is_jail_workspace_ = false;
  std::vector<std::pair<std::string, std::string>> hidden_;  // path, reason
  std::string profile_;
  std::optional<Error> first_error_;
};

}  // namespace paddock
