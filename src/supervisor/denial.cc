#include "supervisor/denial.h"

#include "net/decision_log.h"
#include "net/host_rule.h"

namespace paddock {

std::string_view to_string(Denial::Layer layer) {
  switch (layer) {
    case Denial::Layer::MountHidden: return "mount-hidden";
    case Denial::Layer::MountReadOnly: return "mount-read-only";
    case Denial::Layer::Landlock: return "landlock";
    case Denial::Layer::Seccomp: return "seccomp";
    case Denial::Layer::Egress: return "egress";
  }
  return "seccomp";
}

namespace supervisor {
namespace {

constexpr const char* kVersion = "paddock.denial/1";

Result<Denial::Layer> parse_layer(std::string_view s) {
  for (Denial::Layer l : {Denial::Layer::MountHidden, Denial::Layer::MountReadOnly, Denial::Layer::Landlock,
                          Denial::Layer::Seccomp, Denial::Layer::Egress}) {
    if (to_string(l) == s) return l;
  }
  return make_error("unknown layer \"" + std::string(s) + "\"", "layer");
}

// Where the why engine's decision came from, in words: the rule's path and its origin.
std::string rule_words(const Decision& d) {
  std::string kind;
  switch (d.kind) {
    case Decision::Kind::Denied: kind = "sensitive rule "; break;
    case Decision::Kind::Protected: kind = "protected path "; break;
    case Decision::Kind::Virtual: kind = "sandbox-private area "; break;
    case Decision::Kind::Rule: kind = "rule "; break;
    case Decision::Kind::NotVisible: return "outside every rule (not in the sandbox)";
  }
  std::string out = kind + d.rule_path;
  if (!d.origin.empty()) out += " (" + d.origin + ")";
  return out;
}

}  // namespace

Denial from_decision(const Decision& d) {
  Denial out;
  out.what = d.path;
  out.op = std::string(to_string(d.op));
  out.rule = rule_words(d);
  out.allow_with = d.suggestion;
  switch (d.kind) {
    case Decision::Kind::Denied:
    case Decision::Kind::NotVisible: out.layer = Denial::Layer::MountHidden; break;
    case Decision::Kind::Protected: out.layer = Denial::Layer::MountReadOnly; break;
    case Decision::Kind::Virtual:
      // A sandbox-private area (the fresh HOME, /tmp) is not the host's: the host's file there is
      // not in the sandbox at all. Written, it is a read-only one (/proc, /dev).
      out.layer = d.op == Op::Write ? Denial::Layer::MountReadOnly : Denial::Layer::MountHidden;
      break;
    case Decision::Kind::Rule:
      // A rule without write access is mounted read-only; any other refusal of a visible path
      // (a write-only rule read, exec where the rule grants none) is Landlock's.
      out.layer = d.op == Op::Write ? Denial::Layer::MountReadOnly : Denial::Layer::Landlock;
      break;
  }
  return out;
}

Denial from_network(const NetworkDecision& d) {
  Denial out;
  out.layer = Denial::Layer::Egress;
  // The egress filter records names through net::printable(); the denial keeps the bytes (its
  // printers escape them: sys::display, the JSON serializer).
  out.what = net::join_host_port(net::from_printable(d.host), d.port);
  out.op = d.protocol == "dns" ? "resolve" : "connect";
  out.rule = net::from_printable(d.reason);
  out.allow_with = d.allow_with;
  out.count = d.count;
  return out;
}

Denial from_syscall(std::string_view label, std::string_view error, std::string_view why) {
  Denial out;
  out.layer = Denial::Layer::Seccomp;
  out.what = std::string(label);
  out.op = "syscall";
  out.rule = "denylist (" + std::string(error) + "): " + std::string(why);
  return out;
}

nlohmann::json to_json(const Denial& d) {
  nlohmann::json j = {{"version", kVersion},
                      {"layer", std::string(to_string(d.layer))},
                      {"what", d.what},
                      {"op", d.op},
                      {"rule", d.rule},
                      {"count", d.count},
                      {"first_unix_ms", d.first_unix_ms}};
  j["allow_with"] = d.allow_with.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.allow_with);
  j["pid"] = d.pid > 0 ? nlohmann::json(d.pid) : nlohmann::json(nullptr);
  j["comm"] = d.comm.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.comm);
  return j;
}

Result<Denial> denial_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error("a denial is not a JSON object");
  if (!j.contains("version") || j["version"] != kVersion)
    return make_error("not a paddock.denial/1 object", "version");
  Denial d;
  auto str = [&](const char* key, std::string& out, bool nullable) -> Result<void> {
    if (!j.contains(key) || (j[key].is_null() && !nullable)) return make_error("missing", key);
    if (j[key].is_null()) return ok_result();
    if (!j[key].is_string()) return make_error("not a string", key);
    out = j[key].get<std::string>();
    return ok_result();
  };
  std::string layer;
  for (auto [key, out, nullable] : {std::tuple{"layer", &layer, false}, std::tuple{"what", &d.what, false},
                                    std::tuple{"op", &d.op, false}, std::tuple{"rule", &d.rule, false},
                                    std::tuple{"allow_with", &d.allow_with, true}, std::tuple{"comm", &d.comm, true}}) {
    if (auto r = str(key, *out, nullable); !r) return std::move(r).take_error();
  }
  auto l = parse_layer(layer);
  if (!l) return std::move(l).take_error();
  d.layer = *l;
  if (!j.contains("count") || !j["count"].is_number_unsigned()) return make_error("not a count", "count");
  d.count = j["count"].get<std::uint64_t>();
  if (!j.contains("first_unix_ms") || !j["first_unix_ms"].is_number_integer())
    return make_error("not a time", "first_unix_ms");
  d.first_unix_ms = j["first_unix_ms"].get<std::int64_t>();
  if (j.contains("pid") && j["pid"].is_number_integer()) d.pid = j["pid"].get<int>();
  return d;
}

std::string describe(const Denial& d) {
  std::string out = "refused " + d.op + " " + d.what + " [" + std::string(to_string(d.layer)) + ": " + d.rule + "]";
  if (d.count > 1) out += " x" + std::to_string(d.count);
  if (d.pid > 0) out += ", first by pid " + std::to_string(d.pid) + (d.comm.empty() ? "" : " (" + d.comm + ")");
  out += d.allow_with.empty() ? "; no flag allows it" : "; allow with " + d.allow_with;
  return out;
}

}  // namespace supervisor
}  // namespace paddock
