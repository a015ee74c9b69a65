// The `paddock mcp` configuration: the environments the execute tool offers and their limits.
// Built-ins (shell, python, node) use the host's interpreters mounted read-only; a TOML file can
// tune them and add more. Errors point at the TOML node: "mcp.toml:12:9: ...".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "paddock/result.h"

namespace paddock::mcp {

// How the code reaches the interpreter.
enum class CodeVia {
  Stdin,     // written to the interpreter's stdin (`bash -s`, `python3 -`)
  Argument,  // appended as the last argument (`python3 -c CODE`)
  File,      // written to /workspace/<file_name>, whose name is appended as the last argument
};
std::string_view to_string(CodeVia via);

struct EnvLimits {
  std::uint32_t timeout_seconds = 30;  // the cap; a call may ask for less
  std::uint32_t memory_mb = 512;
  std::uint64_t max_output_bytes = 1u << 20;  // per stream
  std::uint32_t pids = 64;
};

// The file space one call gets, all of it tmpfs (memory): /workspace (also HOME), /tmp and
// /dev/shm. Together they are capped at memory_mb, so that where tmpfs pages are not charged to
// a memory cgroup (unprivileged, rlimit only) a call still holds at most twice memory_mb, and
// max_concurrency calls a known bound (issue 18, item 4).
struct FileSpace {
  std::uint64_t workspace_bytes;  // half
  std::uint64_t tmp_bytes;        // a quarter
  std::uint64_t shm_bytes;        // a quarter
};
FileSpace file_space(const EnvLimits& limits);

struct Environment {
  std::string name;
  std::string description;             // shown to the model
  std::vector<std::string> command;    // argv; command[0] absolute after resolution
  CodeVia code_via = CodeVia::Stdin;
  std::string file_name = "main";      // CodeVia::File
  // Built-in launchers that read all code from stdin before running it, so that a sandbox can be
  // started ahead of time and kept waiting (the warm pool). User environments in stdin mode
  // qualify as well.
  bool warmable = false;
  std::vector<std::string> read_only;  // extra host paths visible read-only
  std::vector<std::pair<std::string, std::string>> env;  // NAME=VALUE set inside
  bool network = false;                // host network (off: loopback only in its own namespace)
  // The egress filter's lists, as paddock run's --allow-domain / --deny-domain (docs/network.md):
  // allow_domains alone: only those hosts; network = true with deny_domains: all but those.
  std::vector<std::string> allow_domains, deny_domains;
  EnvLimits limits;
  std::uint32_t warm = 0;              // sandboxes kept ready for this environment
  bool builtin = false;
  std::string interpreter_version;     // filled by the executor for list_environments, if known
};

struct Defaults {
  EnvLimits limits;
  std::uint32_t warm = 2;
  std::uint32_t max_concurrency = 8;     // calls executing at once; more wait in line
  std::uint32_t session_idle_seconds = 600;
  std::uint32_t session_max_seconds = 3600;
  std::uint32_t max_sessions = 16;
};

struct Config {
  Defaults defaults;
  std::map<std::string, Environment> environments;  // by name
  std::string source;  // the file it came from, or "built-in"

  const Environment* find(const std::string& name) const;
};

// Finds an executable on a fixed system PATH (/usr/local/bin:/usr/bin:/bin), not the caller's
// PATH: per-user shims (pyenv, nvm) usually live in places the sandbox does not show.
std::optional<std::string> find_system_program(const std::string& name);

// The built-in environments whose interpreters exist on this host.
Config builtin_config();

// builtin_config() overlaid with a TOML document. `path` names the file in messages.
Result<Config> parse_config(std::string_view toml_text, const std::string& path);
Result<Config> load_config(const std::string& path);

}  // namespace paddock::mcp
