// The policy as JSON, version "paddock.policy/1" (docs/policy-json.md), and back.
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "paddock/sandbox.h"
#include "policy/policy_json.h"

namespace paddock {
namespace {

using nlohmann::json;

constexpr const char* kVersion = kPolicyJsonVersion;

Result<Origin::Kind> parse_origin_kind(std::string_view s) {
  if (s == "built-in") return Origin::Kind::BuiltIn;
  if (s == "profile") return Origin::Kind::Profile;
  if (s == "flag") return Origin::Kind::Flag;
  if (s == "cwd") return Origin::Kind::Cwd;
  return make_error("unknown origin kind \"" + std::string(s) + "\"");
}

Result<NetMode> parse_net_mode(std::string_view s) {
  if (s == "off") return NetMode::Off;
  if (s == "host") return NetMode::Host;
  if (s == "filtered") return NetMode::Filtered;
  return make_error("unknown network mode \"" + std::string(s) + "\"");
}

// Reading helpers: each failure names the JSON location ("paths[2].access").
class Reader {
 public:
  std::optional<Error> error;

  const json* field(const json& obj, const char* key, const std::string& where, bool required) {
    if (error) return nullptr;
    if (!obj.is_object()) {
      fail(where, "must be an object");
      return nullptr;
    }
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(where.empty() ? key : where + "." + key, "is missing");
      return nullptr;
    }
    return &*it;
  }

  std::string str(const json& obj, const char* key, const std::string& where, bool required = true) {
    const json* v = field(obj, key, where, required);
    if (v == nullptr) return {};
    if (!v->is_string()) {
      fail(where.empty() ? key : where + "." + key, "must be a string");
      return {};
    }
    return v->get<std::string>();
  }

  bool boolean(const json& obj, const char* key, const std::string& where, bool dflt) {
    const json* v = field(obj, key, where, false);
    if (v == nullptr) return dflt;
    if (!v->is_boolean()) {
      fail(where.empty() ? key : where + "." + key, "must be true or false");
      return dflt;
    }
    return v->get<bool>();
  }

  std::optional<std::uint64_t> u64(const json& obj, const char* key, const std::string& where) {
    const json* v = field(obj, key, where, false);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number_unsigned()) {
      fail(where + "." + key, "must be a non-negative integer");
      return std::nullopt;
    }
    return v->get<std::uint64_t>();
  }

  std::vector<std::string> strings(const json& obj, const char* key, const std::string& where) {
    std::vector<std::string> out;
    const json* v = field(obj, key, where, false);
    if (v == nullptr) return out;
    std::string at = where.empty() ? key : where + "." + key;
    if (!v->is_array()) {
      fail(at, "must be an array of strings");
      return out;
    }
    for (const auto& s : *v) {
      if (!s.is_string()) {
        fail(at, "must be an array of strings");
        return out;
      }
      out.push_back(s.get<std::string>());
    }
    return out;
  }

  const json& array(const json& obj, const char* key, const std::string& where) {
    static const json empty = json::array();
    const json* v = field(obj, key, where, false);
    if (v == nullptr) return empty;
    if (!v->is_array()) {
      fail(where.empty() ? key : where + "." + key, "must be an array");
      return empty;
    }
    return *v;
  }

  void fail(const std::string& where, const std::string& what) {
    if (!error) error = make_error("invalid policy JSON: " + where + " " + what);
  }
  void fail(Error e) {
    if (!error) error = std::move(e);
  }
};

}  // namespace

std::string_view origin_kind_name(Origin::Kind k) {
  switch (k) {
    case Origin::Kind::BuiltIn: return "built-in";
    case Origin::Kind::Profile: return "profile";
    case Origin::Kind::Flag: return "flag";
    case Origin::Kind::Cwd: return "cwd";
  }
  return "built-in";
}

json policy_to_json(const Policy& p) {
  json j;
  j["version"] = kVersion;
  j["cwd"] = p.cwd;
  j["home"] = p.home;
  j["user"] = p.user;
  j["profile"] = p.profile;

  json paths = json::array();
  for (const auto& r : p.paths) {
    json e{{"path", r.path},
           {"given", r.given},
           {"access", to_string(r.access)},
           {"origin", {{"kind", origin_kind_name(r.origin.kind)}, {"detail", r.origin.detail}}},
           {"optional", r.optional}};
    if (!r.symlink_target.empty()) e["symlink_target"] = r.symlink_target;
    paths.push_back(std::move(e));
  }
  j["paths"] = std::move(paths);

  json denied = json::array();
  for (const auto& d : p.denied) denied.push_back({{"path", d.path}, {"reason", d.reason}});
  j["denied"] = std::move(denied);

  json prot = json::array();
  for (const auto& d : p.protected_paths) {
    prot.push_back({{"path", d.path}, {"reason", d.reason}, {"exists", d.exists}});
  }
  j["protected"] = std::move(prot);

  j["network"] = {{"mode", to_string(p.network.mode)},
                  {"allow", p.network.allow_domains},
                  {"deny", p.network.deny_domains}};

  json set = json::object();
  for (const auto& [name, value] : p.env.set) set[name] = value;
  j["env"] = {{"pass", p.env.pass}, {"set", std::move(set)}};

  json limits = json::object();
  const Limits& l = p.limits;
  if (l.memory_bytes) limits["memory_bytes"] = *l.memory_bytes;
  if (l.pids) limits["pids"] = *l.pids;
  if (l.pids_ceiling) limits["pids_ceiling"] = *l.pids_ceiling;
  if (l.cpu) limits["cpu"] = *l.cpu;
  if (l.timeout) limits["timeout_ms"] = static_cast<std::uint64_t>(l.timeout->count());
  if (l.tmp_size_bytes) limits["tmp_size_bytes"] = *l.tmp_size_bytes;
  if (l.shm_size_bytes) limits["shm_size_bytes"] = *l.shm_size_bytes;
  if (l.home_size_bytes) limits["home_size_bytes"] = *l.home_size_bytes;
  if (l.max_file_size_bytes) limits["max_file_size_bytes"] = *l.max_file_size_bytes;
  if (l.max_open_files) limits["max_open_files"] = *l.max_open_files;
  if (l.core_dumps) limits["core_dumps"] = true;
  if (l.best_effort) limits["best_effort"] = true;
  j["limits"] = std::move(limits);

  j["require_namespaces"] = p.require_namespaces;
  j["refuse_discarded_writes"] = p.refuse_discarded_writes;
  j["notes"] = p.notes;
  return j;
}

Result<Policy> policy_from_json(const json& j) {
  Reader rd;
  Policy p;
  if (!j.is_object()) return make_error("invalid policy JSON: not an object");
  std::string version = rd.str(j, "version", "");
  if (rd.error) return *rd.error;
  if (version != kVersion) {
    return make_error("unsupported policy JSON version \"" + version + "\"", {},
                      std::string("this paddock reads ") + kVersion);
  }
  p.cwd = rd.str(j, "cwd", "");
  p.home = rd.str(j, "home", "");
  p.user = rd.str(j, "user", "");
  p.profile = rd.str(j, "profile", "", false);

  const json& paths = rd.array(j, "paths", "");
  for (std::size_t i = 0; i < paths.size() && !rd.error; ++i) {
    std::string at = "paths[" + std::to_string(i) + "]";
    const json& e = paths[i];
    PathRule r;
    r.path = rd.str(e, "path", at);
    r.given = rd.str(e, "given", at, false);
    std::string access = rd.str(e, "access", at);
    if (rd.error) break;
    auto a = parse_access(access);
    if (!a) {
      rd.fail(at + ".access", "is \"" + access + "\", not one of read, write, read+write");
      break;
    }
    r.access = *a;
    if (const json* o = rd.field(e, "origin", at, false)) {
      std::string kind = rd.str(*o, "kind", at + ".origin");
      r.origin.detail = rd.str(*o, "detail", at + ".origin", false);
      if (rd.error) break;
      auto k = parse_origin_kind(kind);
      if (!k) {
        rd.fail(at + ".origin.kind", "is \"" + kind + "\", not one of built-in, profile, flag, cwd");
        break;
      }
      r.origin.kind = *k;
    }
    r.optional = rd.boolean(e, "optional", at, false);
    r.symlink_target = rd.str(e, "symlink_target", at, false);
    if (!rd.error && (r.path.empty() || r.path[0] != '/')) rd.fail(at + ".path", "must be absolute");
    p.paths.push_back(std::move(r));
  }

  const json& denied = rd.array(j, "denied", "");
  for (std::size_t i = 0; i < denied.size() && !rd.error; ++i) {
    std::string at = "denied[" + std::to_string(i) + "]";
    DeniedPath d;
    d.path = rd.str(denied[i], "path", at);
    d.reason = rd.str(denied[i], "reason", at, false);
    p.denied.push_back(std::move(d));
  }

  const json& prot = rd.array(j, "protected", "");
  for (std::size_t i = 0; i < prot.size() && !rd.error; ++i) {
    std::string at = "protected[" + std::to_string(i) + "]";
    ProtectedPath d;
    d.path = rd.str(prot[i], "path", at);
    d.reason = rd.str(prot[i], "reason", at, false);
    d.exists = rd.boolean(prot[i], "exists", at, true);
    p.protected_paths.push_back(std::move(d));
  }

  if (const json* n = rd.field(j, "network", "", false)) {
    std::string mode = rd.str(*n, "mode", "network");
    if (!rd.error) {
      auto m = parse_net_mode(mode);
      if (!m) {
        rd.fail("network.mode", "is \"" + mode + "\", not one of off, host, filtered");
      } else {
        p.network.mode = *m;
      }
    }
    p.network.allow_domains = rd.strings(*n, "allow", "network");
    p.network.deny_domains = rd.strings(*n, "deny", "network");
  }

  if (const json* e = rd.field(j, "env", "", false)) {
    p.env.pass = rd.strings(*e, "pass", "env");
    if (const json* s = rd.field(*e, "set", "env", false)) {
      if (!s->is_object()) {
        rd.fail("env.set", "must be an object of strings");
      } else {
        for (auto it = s->begin(); it != s->end(); ++it) {
          if (!it.value().is_string()) {
            rd.fail("env.set." + it.key(), "must be a string");
            break;
          }
          p.env.set.emplace_back(it.key(), it.value().get<std::string>());
        }
      }
    }
  }

  if (const json* l = rd.field(j, "limits", "", false)) {
    p.limits.memory_bytes = rd.u64(*l, "memory_bytes", "limits");
    p.limits.pids = rd.u64(*l, "pids", "limits");
    p.limits.pids_ceiling = rd.u64(*l, "pids_ceiling", "limits");
    if (const json* cpu = rd.field(*l, "cpu", "limits", false)) {
      if (!cpu->is_number()) {
        rd.fail("limits.cpu", "must be a number");
      } else {
        p.limits.cpu = cpu->get<double>();
      }
    }
    if (auto ms = rd.u64(*l, "timeout_ms", "limits")) {
      p.limits.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(*ms));
    }
    p.limits.tmp_size_bytes = rd.u64(*l, "tmp_size_bytes", "limits");
    p.limits.shm_size_bytes = rd.u64(*l, "shm_size_bytes", "limits");
    p.limits.home_size_bytes = rd.u64(*l, "home_size_bytes", "limits");
    p.limits.max_file_size_bytes = rd.u64(*l, "max_file_size_bytes", "limits");
    p.limits.max_open_files = rd.u64(*l, "max_open_files", "limits");
    p.limits.core_dumps = rd.boolean(*l, "core_dumps", "limits", false);
    p.limits.best_effort = rd.boolean(*l, "best_effort", "limits", false);
  }

  p.require_namespaces = rd.boolean(j, "require_namespaces", "", false);
  p.refuse_discarded_writes = rd.boolean(j, "refuse_discarded_writes", "", false);
  p.notes = rd.strings(j, "notes", "");
  if (rd.error) return *rd.error;
  return p;
}

}  // namespace paddock
