// `why`: which part of the policy decides an access. The semantics mirror the mount layer:
//   1. a denied (sensitive) path masks everything below it, except rules mounted strictly inside it;
//   2. a protected path is read-only (writes refused), except where a rule names it exactly;
//   3. otherwise the deepest of {path rules, sandbox-private areas} containing the path decides,
//      a rule winning a tie (a rule on HOME itself replaces the empty HOME);
//   4. nothing contains it: it does not exist inside the sandbox.
// Documented in docs/why.md.
#include "paddock/why.h"

#include <optional>
#include <string>

#include "policy/path_util.h"
#include "sys/display.h"
#include "policy/sensitive_paths.h"
#include "paddock/state.h"

namespace paddock {
namespace {

// Devices present in the sandbox's minimal /dev.
constexpr const char* kDevEntries[] = {"null", "zero", "full",  "random", "urandom", "tty",   "pts",
                                       "ptmx", "shm",  "fd",    "stdin",  "stdout",  "stderr"};

// An absolute path as written, with "~" against the sandbox HOME and relative paths against the cwd.
std::string absolute(const Policy& policy, std::string_view p) {
  if (p == "~") return path::normalize(policy.home);
  if (p.size() >= 2 && p[0] == '~' && p[1] == '/') {
    return path::normalize(path::join(policy.home, p.substr(2)));
  }
  if (!p.empty() && p[0] == '/') return path::normalize(p);
  return path::normalize(path::join(policy.cwd, p));
}

// The canonical path when it exists; otherwise the canonical longest existing prefix with the
// rest appended. `exists` says which.
std::string canonicalize(const std::string& abs, const FsView& fs, bool& exists) {
  if (auto c = fs.canonical(abs); c.ok()) {
    exists = true;
    return *c;
  }
  exists = false;
  std::string rest;
  for (std::string prefix = abs; prefix != "/";) {
    auto slash = prefix.rfind('/');
    std::string leaf = prefix.substr(slash + 1);
    rest = rest.empty() ? leaf : leaf + "/" + rest;
    prefix = path::parent(prefix);
    if (auto c = fs.canonical(prefix); c.ok()) return path::normalize(path::join(*c, rest));
  }
  return abs;
}

// The deepest existing ancestor-or-self: the narrowest thing a rule can name.
std::string nearest_existing(const std::string& p, const FsView& fs) {
  std::string a = p;
  while (a != "/" && fs.kind(a) == FsView::Kind::Missing) a = path::parent(a);
  return a;
}

// For suggestions: "~/x" under HOME, quoted when the shell would split or expand it (a quote as
// '"'"': no backslash, which the printer, sys::display, would show doubled).
std::string shell_word(const Policy& policy, const std::string& p) {
  std::string shown = p;
  if (!policy.home.empty() && policy.home != "/" && path::is_at_or_under(p, policy.home)) {
    shown = p == policy.home ? "~" : "~" + p.substr(policy.home.size());
  }
  if (shown.find_first_of(" \t'\"$`\\!*?[]{}()<>|&;#") == std::string::npos) return shown;
  auto quote = [](std::string_view s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return q + "'";
  };
  if (shown.rfind("~/", 0) == 0) return "~/" + quote(shown.substr(2));
  return quote(shown);
}

Access wanted(Op op) { return op == Op::Write ? Access::Write : Access::Read; }

// The flag that grants `op` on `target`, keeping read access for writes (programs that write
// almost always read too).
std::string flag_for(Op op) { return op == Op::Write ? "--allow" : "--read"; }

const PathRule* deepest_rule(const Policy& policy, const std::string& p) {
  const PathRule* best = nullptr;
  for (const auto& r : policy.paths) {
    if (!r.symlink_target.empty()) continue;  // recreated links; their targets have own rules
    if (!path::is_at_or_under(p, r.path)) continue;
    if (best == nullptr || r.path.size() >= best->path.size()) best = &r;
  }
  return best;
}

// The deepest sandbox-private area containing p: HOME (empty tmpfs), /tmp, /dev, /proc.
std::optional<std::string> virtual_area(const Policy& policy, const std::string& p) {
  std::optional<std::string> best;
  for (const std::string& area : {policy.home, std::string("/tmp"), std::string("/dev"),
                                  std::string("/proc")}) {
    if (area.empty() || !path::is_at_or_under(p, area)) continue;
    if (!best || area.size() > best->size()) best = area;
  }
  return best;
}

void explain_virtual(const Policy& policy, const std::string& area, bool exists, const FsView& fs,
                     Decision& d) {
  d.kind = Decision::Kind::Virtual;
  d.rule_path = area;
  const std::string& p = d.path;
  if (area == "/tmp") {
    // As HOME below: a host path under /tmp exists only on the host (issue 13, bug 3).
    d.origin = "private /tmp";
    d.access = Access::ReadWrite;
    if (p == area || !exists) {
      d.allowed = true;
      d.reason = p == area ? "/tmp is a private, empty tmpfs inside the sandbox; the host's /tmp is not "
                             "visible and what is written there is discarded at exit."
                           : "/tmp inside the sandbox is a private, empty tmpfs: no host file at " + p +
                                 " is visible there; it can be created, but it is discarded at exit.";
      return;
    }
    d.allowed = false;
    d.reason = "/tmp inside the sandbox is a private, empty tmpfs: the host's " + p +
               " is not visible there, and no rule binds it.";
    d.suggestion = flag_for(d.op) + " " + shell_word(policy, p);
    return;
  }
  if (area == "/dev") {
    d.origin = "minimal /dev";
    std::string rel = p == "/dev" ? "" : p.substr(5);
    std::string top = rel.substr(0, rel.find('/'));
    bool present = rel.empty();
    for (const char* e : kDevEntries) present = present || top == e;
    if (!present) {
      d.kind = Decision::Kind::NotVisible;
      d.reason = "the sandbox has a minimal /dev (null, zero, full, random, urandom, tty, pts, "
                 "ptmx, shm); " + p + " does not exist there and cannot be granted.";
      return;
    }
    d.access = Access::ReadWrite;
    // Device nodes are mounted noexec; /dev/shm is an ordinary private tmpfs.
    d.allowed = d.op != Op::Exec || top == "shm";
    d.reason = d.allowed ? p + " is part of the sandbox's minimal /dev."
                         : p + " is part of the sandbox's minimal /dev, which is not executable.";
    return;
  }
  if (area == "/proc") {
    d.origin = "sandbox /proc";
    d.access = Access::Read;
    d.allowed = d.op == Op::Read;
    d.reason = "/proc belongs to the sandbox's own pid namespace (it shows only the sandbox's "
               "processes) and is read-only; /proc/sys and other host-wide knobs cannot be changed.";
    return;
  }
  // HOME: a fresh empty tmpfs, populated only by rules inside it.
  d.origin = "empty HOME";
  d.access = Access::ReadWrite;
  if (p == area) {
    d.allowed = true;
    d.reason = "HOME (" + area + ") is a fresh, empty tmpfs inside the sandbox; only paths that "
               "rules name are bound into it, and what is written elsewhere is discarded at exit.";
    return;
  }
  if (exists) {
    d.allowed = false;
    d.reason = "HOME inside the sandbox is a fresh, empty tmpfs: the host's " + p +
               " is not visible there, and no rule binds it.";
    d.suggestion = flag_for(d.op) + " " + shell_word(policy, p);
  } else {
    d.allowed = true;
    d.reason = "HOME inside the sandbox is a fresh, empty tmpfs: no host file at " + p +
               " is visible there; it can be created, but it is discarded at exit.";
    std::string target = nearest_existing(p, fs);
    if (target != area) d.suggestion = flag_for(d.op) + " " + shell_word(policy, target);
  }
  // Say so when the path is on the sensitive list: naming it exactly is what exposes it.
  for (const auto& s : sensitive_paths(policy.home)) {
    if (path::is_at_or_under(p, s.path)) {
      d.reason += " " + s.path + " is a sensitive path (" + s.reason + "): paddock hides it even "
                  "inside an allowed parent; only a rule naming it exactly exposes it.";
      break;
    }
  }
}

}  // namespace

std::string_view to_string(Decision::Kind k) {
  switch (k) {
    case Decision::Kind::Rule: return "rule";
    case Decision::Kind::Denied: return "denied";
    case Decision::Kind::Protected: return "protected";
    case Decision::Kind::Virtual: return "virtual";
    case Decision::Kind::NotVisible: return "not-visible";
  }
  return "not-visible";
}

Decision explain_path(const Policy& policy, std::string_view asked, Op op, const FsView& fs) {
  Decision d;
  d.op = op;
  bool exists = false;
  d.path = canonicalize(absolute(policy, asked), fs, exists);
  const std::string& p = d.path;
  const PathRule* rule = deepest_rule(policy, p);

  // 1. Sensitive paths: masked, unless a rule mounted strictly inside the mask contains p.
  for (const auto& den : policy.denied) {
    if (!path::is_at_or_under(p, den.path)) continue;
    if (rule != nullptr && path::is_strictly_under(rule->path, den.path)) continue;
    d.kind = Decision::Kind::Denied;
    d.allowed = false;
    d.access = Access::None;
    d.rule_path = den.path;
    d.origin = den.reason;
    if (den.reason == std::string_view(kStateDirReason)) {
      d.reason = den.path + " is " + den.reason + ": it is hidden inside the sandbox even though " +
                 (rule ? rule->path : std::string("a parent")) + " is visible, and no rule can grant it.";
      d.suggestion.clear();
      return d;
    }
    d.reason = den.path + " is a sensitive path (" + den.reason + "): it is hidden inside the "
               "sandbox even though " + (rule ? rule->path : std::string("a parent")) +
               " is visible. A rule naming exactly " + den.path + " lifts the protection.";
    d.suggestion = flag_for(op) + " " + shell_word(policy, den.path);
    return d;
  }

  // 2. Protected paths: read-only, unless a writable rule strictly inside contains p. Absent
  //    ones are watched rather than blocked (note added below).
  const ProtectedPath* watched = nullptr;
  if (op == Op::Write) {
    for (const auto& pr : policy.protected_paths) {
      if (!path::is_at_or_under(p, pr.path)) continue;
      if (rule != nullptr && path::is_strictly_under(rule->path, pr.path)) continue;
      if (!pr.exists) {
        watched = &pr;
        continue;
      }
      d.kind = Decision::Kind::Protected;
      d.allowed = false;
      d.access = rule != nullptr && grants(rule->access, Access::Read) ? Access::Read : Access::None;
      d.rule_path = pr.path;
      d.origin = pr.reason;
      d.reason = pr.path + " is protected (" + pr.reason + "): it stays read-only inside the "
                 "sandbox so that nothing planted there runs later on the host. A rule naming "
                 "exactly " + pr.path + " lifts the protection.";
      d.suggestion = "--allow " + shell_word(policy, pr.path);
      return d;
    }
  }

  // 3. No host /sys, even under a broad rule.
  if (path::is_at_or_under(p, "/sys")) {
    d.kind = Decision::Kind::NotVisible;
    d.allowed = false;
    d.access = Access::None;
    d.rule_path = "/sys";
    d.reason = p + " is not visible: the sandbox never sees the host's /sys, whatever the rules.";
    return d;
  }

  // 4. The deepest of rules and private areas; a rule wins a tie.
  auto area = virtual_area(policy, p);
  if (area && (rule == nullptr || area->size() > rule->path.size())) {
    explain_virtual(policy, *area, exists, fs, d);
    return d;
  }
  if (rule != nullptr) {
    d.kind = Decision::Kind::Rule;
    d.access = rule->access;
    d.allowed = grants(rule->access, wanted(op));
    d.rule_path = rule->path;
    d.origin = rule->origin.detail;
    std::string where = p == rule->path ? p + " has" : p + " is inside " + rule->path + ", which has";
    d.reason = where + " " + std::string(to_string(rule->access)) + " access (" +
               rule->origin.detail + ").";
    if (d.allowed) {
      if (op == Op::Exec) d.reason += " Read access includes executing.";
      if (watched != nullptr) {
        d.reason += " " + watched->path + " is a protected path (" + watched->reason + "); it does "
                    "not exist now, so the sandbox may create it; paddock moves what it creates aside after the run.";
      }
    } else {
      d.reason += op == Op::Write ? " Writing needs write access." : " Reading and executing need read access.";
      std::string target = exists ? p : nearest_existing(p, fs);
      d.suggestion = "--allow " + shell_word(policy, target);
    }
    return d;
  }

  // 5. Nothing contains it.
  d.kind = Decision::Kind::NotVisible;
  d.allowed = false;
  d.access = Access::None;
  d.reason = p + " is not visible inside the sandbox: no rule covers it.";
  std::string target = exists ? p : nearest_existing(p, fs);
  d.suggestion = flag_for(op) + " " + shell_word(policy, target);
  return d;
}

nlohmann::json to_json(const Decision& d) {
  return {
      {"version", "paddock.why/1"},
      {"path", d.path},
      {"op", to_string(d.op)},
      {"allowed", d.allowed},
      {"kind", to_string(d.kind)},
      {"access", to_string(d.access)},
      {"rule_path", d.rule_path},
      {"origin", d.origin},
      {"reason", d.reason},
      {"suggestion", d.suggestion},
  };
}

// Paths may be ones a sandbox chose (a link it planted, a name it made): every one is shown
// through sys::display.
std::string to_text(const Decision& d) {
  using sys::display;
  std::string out;
  out += display(d.path) + " (" + std::string(to_string(d.op)) + "): " + (d.allowed ? "allowed" : "not allowed") + "\n";
  if (!d.rule_path.empty()) {
    std::string what;
    switch (d.kind) {
      case Decision::Kind::Rule: what = "rule"; break;
      case Decision::Kind::Denied: what = "sensitive path"; break;
      case Decision::Kind::Protected: what = "protected path"; break;
      case Decision::Kind::Virtual: what = "sandbox area"; break;
      case Decision::Kind::NotVisible: what = "sandbox area"; break;
    }
    out += "  decided by: " + what + " " + display(d.rule_path);
    if (!d.origin.empty()) out += " (" + display(d.origin) + ")";
    out += "\n";
  }
  out += "  access:     " + std::string(to_string(d.access)) + "\n";
  out += "  why:        " + display(d.reason) + "\n";
  if (!d.suggestion.empty()) out += "  to allow:   paddock run " + display(d.suggestion) + " ...\n";
  return out;
}

}  // namespace paddock
