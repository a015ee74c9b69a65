// Reading /etc/paddock/host.toml: the schema of docs/host.md. Every error names FILE:LINE:COL of
// the offending key or value (as profiles do, src/policy/profile_apply.cc).
#include "host/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <optional>
#include <sstream>

#include <toml++/toml.h>

#include "host/paths.h"
#include "paddock/profile.h"
#include "policy/builtin_profiles.h"
#include "policy/env_names.h"
#include "policy/path_util.h"
#include "policy/system_paths.h"
#include "policy/toml_reader.h"
#include "sys/unique_fd.h"

namespace paddock::host {
namespace {

const std::vector<std::string> kTopKeys = {"host", "agents", "users"};
const std::vector<std::string> kHostKeys = {"paddock", "wrapper_dir", "sudoers_dir", "manifest"};
const std::vector<std::string> kAgentKeys = {
    "binary",    "hide_dir",      "command", "user",     "group",   "state_dir", "config_source", "settings_file",
    "user_env_file", "env_files", "env",     "settings", "users",   "profile",   "network",       "pass_env"};
const std::vector<std::string> kUserKeys = {"roots", "config_source"};
const std::vector<std::string> kRootKeys = {"path", "allow_broad"};

constexpr std::size_t kMaxConfigBytes = 1 << 20;

// Directories a hide_dir must not be (nor contain): making one of them 0750 would lock every
// user out of the system's programs.
const char* const kSystemDirs[] = {
    "/usr",           "/usr/bin",       "/usr/sbin",   "/usr/lib",   "/usr/lib64",      "/usr/libexec",
    "/usr/share",     "/usr/local",     "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib", "/usr/local/share",
    "/usr/local/libexec", "/bin",        "/sbin",       "/lib",       "/lib64",          "/etc",
    "/opt",           "/var",           "/var/lib",    "/home",      "/srv",            "/nix",
    "/nix/store",     "/run",           "/tmp",        "/root",      "/boot",           "/dev",
    "/proc",          "/sys"};

nlohmann::json to_json(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    nlohmann::json o = nlohmann::json::object();
    for (auto&& [k, v] : *t) o[std::string(k.str())] = to_json(v);
    return o;
  }
  if (const auto* a = n.as_array()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& v : *a) arr.push_back(to_json(v));
    return arr;
  }
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* b = n.as_boolean()) return b->get();
  // Dates and times: their TOML text.
  std::ostringstream os;
  if (const auto* d = n.as_date()) os << d->get();
  else if (const auto* t = n.as_time()) os << t->get();
  else if (const auto* dt = n.as_date_time()) os << dt->get();
  return os.str();
}

bool valid_unix_name(std::string_view s, std::size_t max = 32) {
  if (s.empty() || s.size() > max) return false;
  if (!((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool valid_command_name(std::string_view s) {
  if (s.empty() || s[0] == '.' || s[0] == '-' || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == '+';
  });
}

class Reader {
 public:
  Reader(const std::string& file, const UserDb& users) : file_(file), users_(users), r_(file) {}

  Result<HostConfig> run(std::string_view text) {
    auto parsed = r_.parse(text);
    if (!parsed) return std::move(parsed).take_error();
    const toml::table& doc = *parsed;
    cfg_.file = file_;
    if (!check_keys(doc, "", kTopKeys)) return *r_.error();
    if (const toml::table* h = table_at(doc, "host", "[host]")) host(*h);
    if (const toml::table* us = table_at(doc, "users", "[users]")) {
      for (auto&& [k, v] : *us) {
        if (r_.failed()) break;
        user(std::string(k.str()), k.source(), v);
      }
    }
    const toml::table* as = table_at(doc, "agents", "[agents]");
    if (!r_.failed() && (as == nullptr || as->empty())) {
      fail_at(doc.source(), "no [agents.NAME] table: there is nothing to run",
              "add one, e.g. [agents.pi] with binary = \"/usr/local/lib/pi/bin/pi\"");
    }
    if (as != nullptr) {
      for (auto&& [k, v] : *as) {
        if (r_.failed()) break;
        agent(std::string(k.str()), k.source(), v);
      }
    }
    if (!r_.failed()) cross_checks();
    if (r_.failed()) return *r_.error();
    return std::move(cfg_);
  }

 private:
  std::string at(const toml::source_region& r) const { return r_.at(r); }
  Error fail_at(const toml::source_region& r, std::string message, std::string hint = {}) {
    return r_.fail_at(r, std::move(message), std::move(hint));
  }
  Error fail(const toml::node& n, std::string message, std::string hint = {}) {
    return r_.fail(n, std::move(message), std::move(hint));
  }
  void fail_at_where(const std::string& where, std::string message, std::string hint = {}) {
    r_.fail_where(where, std::move(message), std::move(hint));
  }
  static std::string type_name(const toml::node& n) { return TomlReader::type_name(n); }

  bool check_keys(const toml::table& t, const std::string& table, const std::vector<std::string>& known) {
    return r_.check_keys(t, table, known);
  }

  const toml::table* table_at(const toml::table& parent, const char* key, const std::string& shown) {
    return r_.table(parent, key, shown);
  }

  std::optional<std::string> string_at(const toml::table& t, const char* key, const std::string& table) {
    return r_.string(t, key, std::string(key) + " in " + table);
  }

  // An absolute path in normal form (no ".", "..", "//" or trailing "/").
  std::optional<std::string> abs_path_at(const toml::table& t, const char* key, const std::string& table) {
    auto s = string_at(t, key, table);
    if (!s) return std::nullopt;
    if (!is_normal_absolute(*s)) {
      fail(*t.get(key), std::string(key) + " in " + table + " must be an absolute path in normal form, got \"" +
                            *s + "\"",
           "start it with / and leave out '.', '..', '//' and a trailing '/'");
      return std::nullopt;
    }
    return s;
  }

  std::optional<std::string> rel_path_at(const toml::table& t, const char* key, const std::string& table) {
    auto s = string_at(t, key, table);
    if (!s) return std::nullopt;
    if (!is_normal_relative(*s)) {
      fail(*t.get(key), std::string(key) + " in " + table + " must be a relative path below the home, got \"" + *s +
                            "\"",
           "e.g. \".pi/agent\": no leading '/', no '.', '..' or '//'");
      return std::nullopt;
    }
    return s;
  }

  std::optional<std::vector<TomlString>> strings_at(const toml::table& t, const char* key, const std::string& table) {
    return r_.strings(t, key, std::string(key) + " in " + table);
  }

  void host(const toml::table& h) {
    if (!check_keys(h, "[host]", kHostKeys)) return;
    if (auto p = abs_path_at(h, "paddock", "[host]")) cfg_.paddock = *p;
    if (auto p = abs_path_at(h, "wrapper_dir", "[host]")) cfg_.wrapper_dir = *p;
    if (auto p = abs_path_at(h, "sudoers_dir", "[host]")) cfg_.sudoers_dir = *p;
    if (auto p = abs_path_at(h, "manifest", "[host]")) cfg_.manifest = *p;
    if (r_.failed()) return;
    for (const char* k : {"paddock", "wrapper_dir", "sudoers_dir"}) {
      const toml::node* n = h.get(k);
      if (n == nullptr) continue;
      if (!sudoers_safe_path(n->as_string()->get())) {
        fail(*n, std::string(k) + " in [host] has a character that cannot go into a sudoers rule or a script",
             "letters, digits and / . _ + - only");
        return;
      }
    }
  }

  void user(const std::string& name, const toml::source_region& key_at, const toml::node& v) {
    const std::string table = "[users." + name + "]";
    if (!v.is_table()) {
      fail(v, table + " must be a table, got " + type_name(v));
      return;
    }
    const toml::table& t = *v.as_table();
    if (!check_keys(t, table, kUserKeys)) return;
    UserEntry u;
    u.name = name;
    u.where = at(key_at);
    std::optional<UserInfo> info = valid_unix_name(name) ? users_.by_name(name) : std::nullopt;
    if (!info) {
      fail_at(key_at, "no user \"" + name + "\" on this system (no passwd entry)",
              "create the user first, or remove " + table);
      return;
    }
    if (info->uid == 0) {
      fail_at(key_at, "root cannot be a host user of an agent: root needs no wrapper");
      return;
    }
    if (auto cs = rel_path_at(t, "config_source", table)) {
      u.config_source = *cs;
      u.config_source_where = at(t.get("config_source")->source());
    }
    const toml::node* roots = t.get("roots");
    if (r_.failed()) return;
    if (roots == nullptr) {
      fail_at(key_at, "user " + name + " has no roots: list the directories they may run agents in",
              "roots = [\"~/src\"]");
      return;
    }
    if (!roots->is_array()) {
      fail(*roots, "roots in " + table + " must be an array, got " + type_name(*roots));
      return;
    }
    if (roots->as_array()->empty()) {
      fail(*roots, "roots of user " + name + " is empty: they could run agents nowhere",
           "list at least one directory, e.g. roots = [\"~/src\"]");
      return;
    }
    for (const auto& e : *roots->as_array()) {
      RootSpec r;
      r.where = at(e.source());
      if (e.is_string()) {
        r.given = e.as_string()->get();
      } else if (e.is_table()) {
        const toml::table& rt = *e.as_table();
        if (!check_keys(rt, "a root of " + table, kRootKeys)) return;
        const toml::node* p = rt.get("path");
        if (p == nullptr || !p->is_string()) {
          fail(p != nullptr ? *p : e, "a root table needs path = \"...\" (a string)");
          return;
        }
        r.given = p->as_string()->get();
        if (auto b = r_.boolean(rt, "allow_broad", "allow_broad")) r.broad = *b;
        if (r_.failed()) return;
      } else {
        fail(e, "a root is a string or a table { path = \"...\", allow_broad = true }, got " + type_name(e));
        return;
      }
      if (!check_root(r, *info)) return;
      u.roots.push_back(std::move(r));
    }
    cfg_.users.push_back(std::move(u));
  }

  // The lexical checks of a root; the runner checks again once symlinks are resolved.
  bool check_root(const RootSpec& r, const UserInfo& owner) {
    const std::string& g = r.given;
    std::string expanded;
    if (g == "~") {
      expanded = owner.home;
    } else if (g.rfind("~/", 0) == 0) {
      expanded = owner.home + g.substr(1);
    } else if (!g.empty() && g[0] == '~') {
      fail_at_where(r.where, "root \"" + g + "\": only \"~\" and \"~/...\" (the user's own home) are understood",
                    "write another user's directory as an absolute path");
      return false;
    } else if (!g.empty() && g[0] == '/') {
      expanded = g;
    } else {
      fail_at_where(r.where, "root \"" + g + "\" is relative: a root is an absolute path or starts with ~/",
                    "e.g. \"~/src\" or \"/srv/projects/" + owner.name + "\"");
      return false;
    }
    const std::string shown_form = g[0] == '~' ? g.substr(1) : g;
    if (!is_normal_absolute(expanded) || (g[0] == '~' && !shown_form.empty() && !is_normal_absolute(shown_form))) {
      fail_at_where(r.where, "root \"" + g + "\" is not in normal form", "leave out '.', '..', '//' and a trailing '/'");
      return false;
    }
    if (r.broad) return true;
    const std::string hint = "if you mean it, write { path = \"" + g + "\", allow_broad = true }";
    if (expanded == "/") {
      fail_at_where(r.where, "root \"/\" is the whole file system", hint);
      return false;
    }
    std::vector<UserInfo> people = users_.login_users();
    people.push_back(owner);
    for (const UserInfo& u : people) {
      if (u.home.empty() || u.home == "/" || !is_normal_absolute(u.home)) continue;
      if (expanded == u.home) {
        fail_at_where(r.where, "root \"" + g + "\" is " + (u.name == owner.name ? "the user's" : u.name + "'s") +
                                   " whole home (" + u.home + ")",
                      hint);
        return false;
      }
      if (path::is_strictly_under(u.home, expanded)) {
        fail_at_where(r.where, "root \"" + g + "\" contains the whole home of " + u.name + " (" + u.home + ")", hint);
        return false;
      }
    }
    return true;
  }

  void agent(const std::string& name, const toml::source_region& key_at, const toml::node& v) {
    const std::string table = "[agents." + name + "]";
    if (!v.is_table()) {
      fail(v, table + " must be a table, got " + type_name(v));
      return;
    }
    if (!valid_unix_name(name, 20)) {
      fail_at(key_at, "agent name \"" + name + "\" is not usable as part of a user name",
              "lower-case letters, digits, '_' and '-', starting with a letter, at most 20 characters");
      return;
    }
    const toml::table& t = *v.as_table();
    if (!check_keys(t, table, kAgentKeys)) return;
    AgentEntry a;
    a.name = name;
    a.where = at(key_at);
    a.command = name;
    a.user = name + "-agent";
    a.state_dir = host_agent_state_dir(name);
    a.config_source = "." + name;
    a.pass_env = default_pass_env();

    if (const toml::node* b = t.get("binary"); b == nullptr) {
      fail_at(key_at, table + " has no binary: the path of the real agent program",
              "binary = \"/usr/local/lib/" + name + "/bin/" + name + "\"");
      return;
    }
    if (auto p = abs_path_at(t, "binary", table)) {
      a.binary = *p;
      a.binary_where = at(t.get("binary")->source());
    }
    if (auto p = abs_path_at(t, "hide_dir", table)) {
      a.hide_dir = *p;
      a.hide_dir_where = at(t.get("hide_dir")->source());
    }
    if (auto s = string_at(t, "command", table)) {
      if (!valid_command_name(*s) || *s == "paddock") {
        fail(*t.get("command"), "command \"" + *s + "\" is not usable as a file name in the wrapper directory",
             "letters, digits and . _ + -, not starting with '.' or '-', and not \"paddock\"");
        return;
      }
      a.command = *s;
    }
    for (const char* k : {"user", "group"}) {
      if (auto s = string_at(t, k, table)) {
        if (!valid_unix_name(*s)) {
          fail(*t.get(k), std::string(k) + " \"" + *s + "\" is not a valid user or group name",
               "lower-case letters, digits, '_' and '-', starting with a letter or '_', at most 32 characters");
          return;
        }
        (std::string(k) == "user" ? a.user : a.group) = *s;
      }
    }
    if (a.group.empty()) a.group = a.user;
    if (auto p = abs_path_at(t, "state_dir", table)) {
      a.state_dir = *p;
      a.state_dir_where = at(t.get("state_dir")->source());
    }
    if (auto p = rel_path_at(t, "config_source", table)) a.config_source = *p;
    for (const char* k : {"settings_file", "user_env_file"}) {
      if (auto p = rel_path_at(t, k, table)) (std::string(k) == "settings_file" ? a.settings_file : a.user_env_file) = *p;
    }
    if (auto files = strings_at(t, "env_files", table)) {
      for (auto& [f, where, node] : *files) {
        if (!is_normal_absolute(f)) {
          fail_at_where(where, "env_files entry \"" + f + "\" must be an absolute path in normal form");
          return;
        }
        a.env_files.emplace_back(f, where);
      }
    }
    if (r_.failed()) return;
    if (const toml::table* env = table_at(t, "env", table + ".env")) {
      for (auto&& [k, val] : *env) {
        std::string n(k.str());
        if (!valid_env_name(n)) {
          fail_at(k.source(), "\"" + n + "\" is not a valid environment variable name", kEnvNameHint);
          return;
        }
        if (!val.is_string()) {
          fail(val, "the value of " + n + " in " + table + ".env must be a string, got " + type_name(val),
               "quote it: " + n + " = \"...\"");
          return;
        }
        a.env.push_back({n, val.as_string()->get(), at(k.source())});
      }
    }
    if (const toml::table* s = table_at(t, "settings", table + ".settings")) {
      a.settings = to_json(*s);
      a.settings_where = at(t.get("settings")->source());
    }
    if (auto users = strings_at(t, "users", table)) {
      for (auto& [u, where, node] : *users) {
        if (cfg_.user(u) == nullptr) {
          fail_at_where(where, "users in " + table + " names \"" + u + "\", who has no [users." + u + "] table",
                        "add [users." + u + "] with their roots");
          return;
        }
        a.users.push_back(u);
      }
      if (a.users.empty()) {
        fail(*t.get("users"), "users in " + table + " is empty: nobody could run " + name,
             "list who may, or leave users out to allow every [users.*]");
        return;
      }
    } else if (!r_.failed()) {
      for (const UserEntry& u : cfg_.users) a.users.push_back(u.name);
    }
    if (auto s = string_at(t, "profile", table)) {
      if (!s->empty() && (*s)[0] == '/') {
        if (!is_normal_absolute(*s)) {
          fail(*t.get("profile"), "profile \"" + *s + "\" must be a built-in profile's name or an absolute path");
          return;
        }
      } else if (find_builtin_profile(*s) == nullptr) {
        fail(*t.get("profile"), "no built-in profile \"" + *s + "\"",
             "available: " + join_names(builtin_profile_names()) + "; or an absolute path to a profile file");
        return;
      }
      a.profile = *s;
    }
    if (a.profile.empty()) a.profile = find_builtin_profile(name) != nullptr ? name : "default";
    if (auto s = string_at(t, "network", table)) {
      if (*s != "off" && *s != "on") {
        fail(*t.get("network"), "network must be \"off\" or \"on\" (or left out: the profile's), got \"" + *s + "\"");
        return;
      }
      a.network = *s;
    }
    if (auto names = strings_at(t, "pass_env", table)) {
      a.pass_env.clear();
      for (auto& [n, where, node] : *names) {
        std::string bare = n.size() > 1 && n.back() == '*' ? n.substr(0, n.size() - 1) : n;
        if (!valid_env_name(bare)) {
          fail_at_where(where, "\"" + n + "\" is not a valid environment variable name (or NAME_* prefix)",
                        kEnvNameHint);
          return;
        }
        a.pass_env.push_back(n);
      }
    }
    if (r_.failed()) return;
    if (a.users.empty()) {
      fail_at(key_at, "agent " + name + " has no allowed users: its wrapper would let nobody in",
              "add a [users.NAME] table with the user's roots");
      return;
    }
    if (!a.hide_dir.empty()) {
      if (!path::is_strictly_under(a.binary, a.hide_dir)) {
        fail_at_where(a.hide_dir_where, "hide_dir \"" + a.hide_dir + "\" does not contain the binary " + a.binary);
        return;
      }
      for (const char* sys : kSystemDirs) {
        if (path::is_at_or_under(sys, a.hide_dir)) {
          fail_at_where(a.hide_dir_where, "hide_dir \"" + a.hide_dir + "\" is (or contains) the system directory " +
                                              sys + ": making it 0750 would lock users out of it",
                        "install the agent in a directory of its own, e.g. /usr/local/lib/" + name);
          return;
        }
      }
    }
    if (a.state_dir == "/" || path::is_at_or_under("/var/lib", a.state_dir) || path::is_at_or_under("/etc", a.state_dir)) {
      fail(*t.get("state_dir"), "state_dir \"" + a.state_dir + "\" must be a directory of its own",
           "e.g. " + host_agent_state_dir(name));
      return;
    }
    if (a.state_dir_where.empty()) a.state_dir_where = a.where;
    cfg_.agents.push_back(std::move(a));
  }

  static std::string join_names(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  void cross_checks() {
    for (std::size_t i = 0; i < cfg_.agents.size(); ++i) {
      const AgentEntry& a = cfg_.agents[i];
      const std::string wrapper = path::join(cfg_.wrapper_dir, a.command);
      if (wrapper == a.binary) {
        fail_at_where(a.binary_where, "the binary " + a.binary + " is where the wrapper " + a.command +
                                          " goes: the wrapper would replace the agent",
                      "install the agent elsewhere (e.g. /usr/local/lib/" + a.name + "/bin/" + a.name + ")");
        return;
      }
      if (path::is_at_or_under(cfg_.paddock, a.binary) ||
          (!a.hide_dir.empty() && path::is_at_or_under(cfg_.paddock, a.hide_dir))) {
        fail_at_where(a.hide_dir.empty() ? a.binary_where : a.hide_dir_where,
                      "hiding the agent would hide paddock itself (" + cfg_.paddock + ")");
        return;
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (cfg_.agents[j].command == a.command) {
          fail_at_where(a.where, "agents " + cfg_.agents[j].name + " and " + a.name + " have the same command \"" +
                                     a.command + "\"");
          return;
        }
        auto alias = [](std::string n) {
          std::replace(n.begin(), n.end(), '-', '_');
          return n;
        };
        if (alias(cfg_.agents[j].name) == alias(a.name)) {
          fail_at_where(a.where, "agents " + cfg_.agents[j].name + " and " + a.name +
                                     " would share one sudoers alias ('-' and '_' are the same there)");
          return;
        }
        if (cfg_.agents[j].state_dir == a.state_dir) {
          fail_at_where(a.where, "agents " + cfg_.agents[j].name + " and " + a.name + " share the state_dir " +
                                     a.state_dir);
          return;
        }
      }
      for (const UserEntry& u : cfg_.users) {
        if (u.name == a.user) {
          fail_at_where(u.where, "the agent user " + a.user + " of " + a.name +
                                     " cannot also be a host user (it would reach its own state)");
          return;
        }
      }
      if (auto seen = state_dir_seen_by(a, cfg_, users_)) {
        fail_at_where(a.state_dir_where, "state_dir \"" + a.state_dir + "\" " + *seen +
                                             ": one host user's agent would read another's state",
                      "e.g. " + host_agent_state_dir(a.name) + " (the default), which no sandbox sees");
        return;
      }
    }
  }

  std::string file_;
  const UserDb& users_;
  HostConfig cfg_;
  TomlReader r_;
};

// Checks one path's owner and mode: root's, not writable by group (unless root's group) or others.
// Directories writable by others pass only when sticky (/tmp): nobody else can replace root's
// entries in them.
std::optional<std::string> bad_owner_or_mode(const struct stat& st, bool is_dir) {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  if (st.st_uid != 0) return "is owned by uid " + std::to_string(st.st_uid) + ", not root";
  if ((st.st_mode & S_IWGRP) && st.st_gid != 0) return std::string("is writable by its group (mode ") + mode + ")";
  if ((st.st_mode & S_IWOTH) && !(is_dir && (st.st_mode & S_ISVTX))) return std::string("is writable by others (mode ") + mode + ")";
  return std::nullopt;
}

Result<void> check_dirs_above(const std::string& path, const std::string& shown) {
  for (std::string d = path::parent(path);; d = path::parent(d)) {
    struct stat st;
    if (::lstat(d.c_str(), &st) != 0) return errno_error("cannot check the directory " + d, errno, shown);
    if (S_ISLNK(st.st_mode)) {
      std::string real = d;
      char buf[PATH_MAX];
      if (::realpath(d.c_str(), buf) != nullptr) real = buf;
      // A symlinked directory (/etc/static on NixOS): the link's own directory is checked by this
      // walk; its target is checked as a path of its own.
      if (auto r = check_dirs_above(path::join(real, "x"), shown); !r) return r;
    } else if (auto bad = bad_owner_or_mode(st, true)) {
      return make_error("the directory " + d + " " + *bad + ": whoever can write it can replace the file", shown);
    }
    if (d == "/") break;
  }
  return {};
}

}  // namespace

const AgentEntry* HostConfig::agent(std::string_view name) const {
  for (const auto& a : agents)
    if (a.name == name) return &a;
  return nullptr;
}

const UserEntry* HostConfig::user(std::string_view name) const {
  for (const auto& u : users)
    if (u.name == name) return &u;
  return nullptr;
}

const std::vector<std::string>& default_pass_env() {
  static const std::vector<std::string> names = {"TERM", "COLORTERM", "LANG", "LANGUAGE", "LC_*", "TZ", "NO_COLOR"};
  return names;
}

bool sudoers_safe_path(std::string_view p) {
  if (p.empty() || p[0] != '/') return false;
  return std::all_of(p.begin(), p.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' ||
           c == '_' || c == '+' || c == '-';
  });
}

std::optional<std::string> state_dir_seen_by(const AgentEntry& a, const HostConfig& cfg, const UserDb& users) {
  const std::string& dir = a.state_dir;
  for (const std::string& sys : system_paths())
    if (path::is_at_or_under(dir, sys)) return "lies under " + sys + ", which every sandbox can read";
  const std::string program = a.hide_dir.empty() ? a.binary : a.hide_dir;
  if (!program.empty() && path::is_at_or_under(dir, program))
    return "lies under " + program + ", which every run of " + a.name + " can read (the agent's program)";
  for (const std::string& name : a.users) {
    const UserEntry* u = cfg.user(name);
    auto info = users.by_name(name);
    if (u == nullptr) continue;
    for (const RootSpec& r : u->roots) {
      std::string root = r.given;
      if (root == "~" || root.rfind("~/", 0) == 0) {
        if (!info) continue;
        root = root == "~" ? info->home : path::join(info->home, root.substr(2));
      }
      root = path::normalize(root);
      if (path::is_at_or_under(dir, root) || path::is_at_or_under(root, dir))
        return (path::is_at_or_under(dir, root) ? "lies under " : "holds ") + std::string("the project root ") +
               r.given + " of " + name + " (" + r.where + "), which a run there can read";
    }
  }
  return std::nullopt;
}

std::optional<std::string> state_dir_seen_on_disk(const AgentEntry& a, const HostConfig& cfg, const UserDb& users) {
  char buf[PATH_MAX];
  if (::realpath(a.state_dir.c_str(), buf) == nullptr) return state_dir_seen_by(a, cfg, users);
  AgentEntry resolved = a;
  resolved.state_dir = buf;
  if (auto seen = state_dir_seen_by(resolved, cfg, users))
    return resolved.state_dir == a.state_dir ? *seen : "resolves to " + resolved.state_dir + " and " + *seen;
  // The system paths as they resolve too (/opt a link to /srv/opt).
  for (const std::string& sys : system_paths()) {
    char real[PATH_MAX];
    if (::realpath(sys.c_str(), real) != nullptr && path::is_at_or_under(resolved.state_dir, real))
      return "resolves to " + resolved.state_dir + " and lies under " + sys + " (" + real + "), which every sandbox can read";
  }
  return std::nullopt;
}

Result<HostConfig> parse_host_config(std::string_view text, const std::string& file, const UserDb& users) {
  return Reader(file, users).run(text);
}

Result<void> check_root_owned(const std::string& file) {
  if (file.empty() || file[0] != '/') return make_error("must be an absolute path", file);
  struct stat st;
  if (::lstat(file.c_str(), &st) != 0) return errno_error("cannot read", errno, file);
  if (S_ISLNK(st.st_mode)) {
    if (auto r = check_dirs_above(file, file); !r) return r;
    char buf[PATH_MAX];
    if (::realpath(file.c_str(), buf) == nullptr) return errno_error("cannot resolve", errno, file);
    return check_root_owned(buf);
  }
  if (!S_ISREG(st.st_mode)) return make_error("must be a regular file", file);
  if (auto bad = bad_owner_or_mode(st, false)) {
    return make_error(*bad + ": it decides what root does, so only root may write it", file,
                      "chown root:root " + file + " && chmod 0644 " + file);
  }
  return check_dirs_above(file, file);
}

Result<HostConfig> load_host_config(const std::string& file, const UserDb& users) {
  if (auto r = check_root_owned(file); !r) return std::move(r).take_error();
  sys::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) return errno_error("cannot read", errno, file);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot read", errno, file);
  if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & S_IWOTH)) {
    return make_error("changed while being checked", file);
  }
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read", errno, file);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigBytes) return make_error("is larger than 1 MiB", file);
  }
  return parse_host_config(text, file, users);
}

}  // namespace paddock::host
