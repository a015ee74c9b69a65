#include "mcp/config.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "net/host_rule.h"
#include "policy/toml_reader.h"

namespace paddock::mcp {
namespace {

constexpr const char* kSystemPath[] = {"/usr/local/bin", "/usr/bin", "/bin"};

// Built-in launchers: each reads the whole program from stdin, then runs it, so a sandbox can be
// started before the code is known (warm pool) and the code still runs as a fresh program.
// The shell's program is handed to bash as a file (a here-string on fd 3), not as `bash -c CODE`:
// one argument is capped at 128 KiB by the kernel (MAX_ARG_STRLEN), the code at 8 MiB.
constexpr const char* kShellLauncher =
    "IFS= read -r -d '' __paddock_src; exec 3<<<\"$__paddock_src\"; unset __paddock_src; exec bash /dev/fd/3";
constexpr const char* kPythonLauncher =
    // Only what every call needs is imported up front: `traceback` alone costs 7 ms of CPU
    // (re, tokenize, linecache), so it is imported when a program fails.
    "import sys, atexit, os\n"
    "__src = sys.stdin.read()\n"
    "sys.argv = ['<code>']\n"
    "__g = {'__name__': '__main__', '__builtins__': __builtins__}\n"
    "__rc = 0\n"
    "try:\n"
    "    exec(compile(__src, '<code>', 'exec'), __g)\n"
    "except SystemExit as e:\n"
    "    if e.code is None: __rc = 0\n"
    "    elif isinstance(e.code, int): __rc = e.code & 255\n"
    "    else: print(e.code, file=sys.stderr); __rc = 1\n"
    "except BaseException as e:\n"
    "    try:\n"
    "        import traceback\n"
    "        traceback.print_exception(type(e), e, e.__traceback__.tb_next)\n"
    "    except BaseException:\n"
    "        print(f'{type(e).__name__}: {e}', file=sys.stderr)\n"
    "    __rc = 1\n"
    // atexit handlers run as usual; the interpreter's own teardown (module and GC
    // finalization) is skipped: the sandbox is discarded anyway, and it costs milliseconds.
    "atexit._run_exitfuncs()\n"
    "for __f in (sys.stdout, sys.stderr):\n"
    "    try: __f.flush()\n"
    "    except Exception: pass\n"
    "os._exit(__rc)\n";
constexpr const char* kNodeLauncher =
    "let s='';process.stdin.setEncoding('utf8');process.stdin.on('data',d=>s+=d);"
    "process.stdin.on('end',()=>{require('vm').runInThisContext(s,{filename:'<code>'})})";

// Reads typed values through the one TOML reader (policy/toml_reader.h) and keeps the first
// mistake with its position.
class Reader {
 public:
  explicit Reader(const std::string& path) : r_(path) {}

  Result<toml::table> parse(std::string_view text) const { return r_.parse(text); }
  const std::optional<Error>& error() const { return r_.error(); }

  void fail(const toml::node& n, std::string message, std::string hint = {}) {
    r_.fail(n, std::move(message), std::move(hint));
  }

  // SECTION names the table in messages ("[defaults]"), "" for the top level.
  void check_keys(const toml::table& t, const std::vector<std::string>& known, std::string_view section) {
    r_.check_keys(t, section, known);
  }

  template <class Int>
  void uint(const toml::table& t, const char* key, Int& out, std::int64_t min, std::int64_t max) {
    if (auto v = r_.integer(t, key, key, min, max)) out = static_cast<Int>(*v);
  }

  void boolean(const toml::table& t, const char* key, bool& out) {
    if (auto v = r_.boolean(t, key, key)) out = *v;
  }

  void string(const toml::table& t, const char* key, std::string& out) {
    if (auto v = r_.string(t, key, key)) out = std::move(*v);
  }

  void strings(const toml::table& t, const char* key, std::vector<std::string>& out) {
    auto v = r_.strings(t, key, key);
    if (!v) return;
    out.clear();
    for (auto& s : *v) out.push_back(std::move(s.value));
  }

  // An array of egress-filter rules (net::HostRule: "example.com", "*.example.com:443", "10.0.0.0/8").
  void domain_rules(const toml::table& t, const char* key, std::vector<std::string>& out) {
    auto v = r_.strings(t, key, key);
    if (!v) return;
    out.clear();
    for (auto& s : *v) {
      if (auto rule = net::HostRule::parse(s.value); !rule) {
        return fail(*s.node, std::string(key) + ": \"" + s.value + "\": " + rule.error().message, rule.error().hint);
      }
      out.push_back(std::move(s.value));
    }
  }

  void limits(const toml::table& t, EnvLimits& l) {
    uint(t, "timeout_seconds", l.timeout_seconds, 1, 24 * 3600);
    uint(t, "memory_mb", l.memory_mb, 16, 1 << 20);
    uint(t, "max_output_bytes", l.max_output_bytes, 1024, std::int64_t{1} << 30);
    uint(t, "pids", l.pids, 1, 1 << 16);
  }

 private:
  TomlReader r_;
};

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

void parse_environment(Reader& r, const std::string& name, const toml::table& t, Config& cfg) {
  r.check_keys(t,
               {"command", "code", "file_name", "description", "read_only", "env", "network",
                "allow_domains", "deny_domains", "timeout_seconds", "memory_mb", "max_output_bytes",
                "pids", "warm", "enabled"},
               "[environments." + name + "]");
  bool enabled = true;
  r.boolean(t, "enabled", enabled);
  if (!enabled) {
    cfg.environments.erase(name);
    return;
  }
  auto it = cfg.environments.find(name);
  bool existed = it != cfg.environments.end();
  Environment env;
  if (existed) {
    env = it->second;
  } else {
    env.name = name;
    env.limits = cfg.defaults.limits;
    env.warm = cfg.defaults.warm;
  }
  if (const toml::node* cmd = t.get("command")) {
    r.strings(t, "command", env.command);
    if (env.command.empty()) r.fail(*cmd, "command must not be empty");
    env.builtin = false;
    env.warmable = false;
    env.code_via = CodeVia::Stdin;
  } else if (!existed) {
    r.fail(t, "environment \"" + name + "\" needs a command",
           "command = [\"/usr/bin/ruby\"] and code = \"stdin\", \"arg\" or \"file\"");
    return;
  }
  if (const toml::node* via = t.get("code")) {
    auto s = via->value<std::string>();
    if (!s) {
      r.fail(*via, "code must be a string");
    } else if (*s == "stdin") {
      env.code_via = CodeVia::Stdin;
    } else if (*s == "arg" || *s == "argument") {
      env.code_via = CodeVia::Argument;
    } else if (*s == "file") {
      env.code_via = CodeVia::File;
    } else {
      r.fail(*via, "code must be \"stdin\", \"arg\" or \"file\", not \"" + *s + "\"");
    }
    if (env.builtin) r.fail(*via, "code cannot be changed for a built-in environment",
                            "give a command to define your own");
  }
  if (!env.builtin) env.warmable = env.code_via == CodeVia::Stdin;
  r.string(t, "file_name", env.file_name);
  if (env.file_name.empty() || env.file_name.find('/') != std::string::npos ||
      env.file_name == "." || env.file_name == "..") {
    if (const toml::node* n = t.get("file_name")) r.fail(*n, "file_name must be a plain file name");
  }
  r.string(t, "description", env.description);
  r.strings(t, "read_only", env.read_only);
  if (const toml::node* n = t.get("read_only")) {
    for (const auto& p : env.read_only)
      if (p.empty() || p[0] != '/') r.fail(*n, "read_only paths must be absolute: \"" + p + "\"");
  }
  if (const toml::node* n = t.get("env")) {
    const toml::table* et = n->as_table();
    if (!et) {
      r.fail(*n, "env must be a table of NAME = \"value\"");
    } else {
      for (auto&& [k, v] : *et) {
        if (!v.is_string()) {
          r.fail(v, "env." + std::string(k.str()) + " must be a string");
          continue;
        }
        env.env.emplace_back(std::string(k.str()), *v.value<std::string>());
      }
    }
  }
  r.boolean(t, "network", env.network);
  r.domain_rules(t, "allow_domains", env.allow_domains);
  r.domain_rules(t, "deny_domains", env.deny_domains);
  if (env.network && !env.allow_domains.empty() && env.deny_domains.empty()) {
    const toml::node* n = t.get("allow_domains");
    if (!n) n = t.get("network");
    r.fail(n ? *n : static_cast<const toml::node&>(t),
           "network = true shares the whole host network, allow_domains narrows it to a list",
           "use one of them; for the whole network minus some hosts use network = true with deny_domains");
  }
  r.limits(t, env.limits);
  r.uint(t, "warm", env.warm, 0, 64);
  if (!env.warmable) env.warm = 0;
  if (!env.command.empty() && env.command[0].find('/') == std::string::npos) {
    auto found = find_system_program(env.command[0]);
    if (!found) {
      r.fail(*t.get("command"), "\"" + env.command[0] + "\" not found in /usr/local/bin:/usr/bin:/bin",
             "give an absolute path");
    } else {
      env.command[0] = *found;
    }
  }
  if (env.description.empty())
    env.description = "runs code with " + (env.command.empty() ? name : env.command[0]);
  cfg.environments[name] = std::move(env);
}

}  // namespace

std::string_view to_string(CodeVia via) {
  switch (via) {
    case CodeVia::Stdin: return "stdin";
    case CodeVia::Argument: return "arg";
    case CodeVia::File: return "file";
  }
  return "?";
}

const Environment* Config::find(const std::string& name) const {
  auto it = environments.find(name);
  return it == environments.end() ? nullptr : &it->second;
}

std::optional<std::string> find_system_program(const std::string& name) {
  for (const char* dir : kSystemPath) {
    std::string p = std::string(dir) + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

FileSpace file_space(const EnvLimits& limits) {
  const std::uint64_t mem = std::uint64_t{limits.memory_mb} << 20;
  return {mem / 2, mem / 4, mem / 4};
}

Config builtin_config() {
  Config cfg;
  cfg.source = "built-in";
  struct Builtin {
    const char* name;
    const char* program;
    const char* launcher_flag;
    const char* launcher;
    const char* description;
  };
  const Builtin builtins[] = {
      {"shell", "bash", "-c", kShellLauncher,
       "a bash script; coreutils and the host's /usr tools are available read-only"},
      {"python", "python3", "-c", kPythonLauncher,
       "a Python 3 program (the host's python3 and its installed packages, read-only)"},
      {"node", "node", "-e", kNodeLauncher,
       "a JavaScript program run by Node.js (CommonJS: require() works, top-level await does not)"},
  };
  for (const auto& b : builtins) {
    auto program = find_system_program(b.program);
    if (!program) continue;
    Environment env;
    env.name = b.name;
    env.description = b.description;
    env.command = {*program, b.launcher_flag, b.launcher};
    env.code_via = CodeVia::Stdin;
    env.warmable = true;
    env.builtin = true;
    env.limits = cfg.defaults.limits;
    env.warm = cfg.defaults.warm;
    cfg.environments[env.name] = std::move(env);
  }
  return cfg;
}

Result<Config> parse_config(std::string_view toml_text, const std::string& path) {
  Reader r(path);
  auto parsed = r.parse(toml_text);
  if (!parsed) return std::move(parsed).take_error();
  const toml::table& root = *parsed;
  Config cfg = builtin_config();
  cfg.source = path;
  r.check_keys(root, {"defaults", "environments"}, "");
  if (const toml::node* d = root.get("defaults")) {
    if (const toml::table* dt = d->as_table()) {
      r.check_keys(*dt,
                   {"timeout_seconds", "memory_mb", "max_output_bytes", "pids", "warm",
                    "max_concurrency", "session_idle_seconds", "session_max_seconds",
                    "max_sessions"},
                   "[defaults]");
      r.limits(*dt, cfg.defaults.limits);
      r.uint(*dt, "warm", cfg.defaults.warm, 0, 64);
      r.uint(*dt, "max_concurrency", cfg.defaults.max_concurrency, 1, 1024);
      r.uint(*dt, "session_idle_seconds", cfg.defaults.session_idle_seconds, 1, 7 * 24 * 3600);
      r.uint(*dt, "session_max_seconds", cfg.defaults.session_max_seconds, 1, 7 * 24 * 3600);
      r.uint(*dt, "max_sessions", cfg.defaults.max_sessions, 0, 4096);
      // The defaults apply to the built-ins too (a section may override them below).
      for (auto& [name, env] : cfg.environments) {
        env.limits = cfg.defaults.limits;
        env.warm = cfg.defaults.warm;
      }
    } else {
      r.fail(*d, "defaults must be a table: [defaults]");
    }
  }
  if (const toml::node* e = root.get("environments")) {
    if (const toml::table* et = e->as_table()) {
      for (auto&& [k, v] : *et) {
        std::string name(k.str());
        if (!valid_name(name)) {
          r.fail(v, "environment name \"" + name + "\" must be letters, digits, '-', '_' or '.'");
          continue;
        }
        const toml::table* t = v.as_table();
        if (!t) {
          r.fail(v, "environments." + name + " must be a table: [environments." + name + "]");
          continue;
        }
        parse_environment(r, name, *t, cfg);
      }
    } else {
      r.fail(*e, "environments must be a table: [environments.NAME]");
    }
  }
  if (r.error()) return *r.error();
  if (cfg.environments.empty())
    return make_error("no environments left: all were disabled or none was found on this host",
                      path);
  return cfg;
}

Result<Config> load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errno_error("cannot read the configuration", errno, path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path);
}

}  // namespace paddock::mcp
