#include "gate/gate.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>

#include "gate/agent_config.h"
#include "gate/git_watch.h"
#include "gate/toolchain.h"
#include "policy/path_util.h"
#include "paddock/state.h"
#include "policy/protected_paths.h"

namespace paddock::gate {
namespace {

std::vector<std::string_view> components(std::string_view rel) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= rel.size()) {
    std::size_t slash = rel.find('/', pos);
    out.push_back(rel.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos));
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  return out;
}

// Whether the components of ENTRY (a relative path) appear in PARTS starting at AT.
bool matches_at(const std::vector<std::string_view>& parts, std::size_t at, const std::vector<std::string_view>& entry) {
  if (at + entry.size() > parts.size()) return false;
  for (std::size_t i = 0; i < entry.size(); ++i)
    if (parts[at + i] != entry[i]) return false;
  return true;
}

// ENTRY at the root (ANCHORED) or at any depth, with PARTS at or under it.
bool at_or_under(const std::vector<std::string_view>& parts, std::string_view entry, bool anchored) {
  const auto e = components(entry);
  const std::size_t last = anchored ? 0 : parts.size();
  for (std::size_t at = 0; at <= last && at < parts.size(); ++at)
    if (matches_at(parts, at, e)) return true;
  return false;
}

bool quarantine_name(std::string_view name) {
  return name.find(".paddock-quarantine") != std::string_view::npos ||
         (name.size() > 17 && name.substr(name.size() - 17) == ".paddock-rejected");
}

}  // namespace

std::string_view to_string(Class c) {
  switch (c) {
    case Class::Git: return "git";
    case Class::HostRun: return "host-run";
    case Class::AgentConfig: return "agent-config";
    case Class::Toolchain: return "toolchain";
    case Class::SetId: return "set-id";
    case Class::Special: return "special";
  }
  return "?";
}

bool in_git_directory(std::string_view rel) {
  for (std::string_view c : components(rel))
    if (c == ".git") return true;
  return false;
}

std::optional<Verdict> judge_path(std::string_view rel, RootKind kind, mode_t mode) {
  const auto parts = components(rel);
  for (std::string_view c : parts)
    if (c.empty() || c == "." || c == "..")
      return Verdict{Class::HostRun, "not a plain relative path: nothing is guessed about where it lands"};
  if (S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode))
    return Verdict{Class::Special, "a device node, FIFO or socket: host tools that open it hang or reach a device"};
  if (S_ISREG(mode) && (mode & (S_ISUID | S_ISGID)) != 0)
    return Verdict{Class::SetId, "a set-id file runs with its owner's or group's rights whoever starts it"};

  for (std::string_view c : parts) {
    if (c == ".git")
      return Verdict{Class::Git, "git runs what a repository's control files name (config, hooks) and follows "
                                 "a .git file or link to another repository"};
    if (quarantine_name(c))
      return Verdict{Class::HostRun, "set aside by paddock after a run as something the host would run: "
                                     "publishing it would undo that"};
  }
  if (auto g = git_name(parts.back())) return Verdict{Class::Git, *g};

  const bool home = kind == RootKind::Home;
  if (home) {
    for (const ProtectedEntry& e : home_protected_entries())
      if (at_or_under(parts, e.path, /*anchored=*/true)) return Verdict{Class::HostRun, e.reason};
    for (const KnownConfig& k : known_agent_configs())
      if (at_or_under(parts, k.rel, /*anchored=*/true)) return Verdict{Class::AgentConfig, k.why};
  }
  // A project's protected files at any depth: direnv, editors and agents started in a
  // subdirectory read that directory's (and HOME holds projects too).
  for (const ProtectedEntry& e : workspace_protected_entries())
    if (at_or_under(parts, e.path, /*anchored=*/false)) return Verdict{Class::HostRun, e.reason};
  if (auto t = toolchain_name(parts)) return Verdict{Class::Toolchain, *t};
  return std::nullopt;
}

IndexPlace index_place(const Policy& policy, const std::vector<SandboxMount>& mounts, const std::string& state_dir) {
  if (state_dir.empty() || state_dir.front() != '/') return {};
  // The state directory as the rules name paths (resolved, up to what exists: paddock makes it
  // before the run).
  char* real = ::realpath(state_dir.c_str(), nullptr);
  if (real == nullptr) return {};
  const std::string dir = path::join(real, "gate");
  std::free(real);
  // The walk trusts what it finds there: only where the sandbox cannot write. A writable rule
  // that holds it must be one the state's mask covers (the policy masks it wherever a rule shows
  // it: include/paddock/state.h); a writable mount that holds it, never.
  auto masked = [&] {
    return std::any_of(policy.denied.begin(), policy.denied.end(), [&](const DeniedPath& d) {
      return d.reason == std::string_view(kStateDirReason) && path::is_at_or_under(dir, d.path);
    });
  };
  for (const PathRule& r : policy.paths)
    if (grants(r.access, Access::Write) && path::is_at_or_under(dir, r.path) && !masked()) return {};
  for (const SandboxMount& m : mounts) {
    if (!grants(m.access, Access::Write)) continue;
    for (const std::string* host : {&m.host_path, &m.overlay_upper, &m.overlay_work})
      if (!host->empty() && path::is_at_or_under(dir, *host)) return {};
  }
  IndexPlace place;
  place.dir = dir;
  return place;
}

Check Check::before_run(const Policy& policy, const std::vector<SandboxMount>& mounts, const std::string& state_dir) {
  Check c;
  c.watch_ = Watch::before(policy, mounts, index_place(policy, mounts, state_dir));
  c.masks_ = MaskWatch::before(policy);
  return c;
}

Check Check::before_write(const std::vector<Area>& areas) {
  WatchSpec spec;
  for (const Area& a : areas) {
    spec.writable.push_back(a.path);
    const auto& entries = a.kind == RootKind::Home ? home_protected_entries() : workspace_protected_entries();
    for (const ProtectedEntry& e : entries) {
      const std::string p = a.path + "/" + e.path;
      struct stat st;
      spec.protected_paths.push_back({p, e.reason, lstat(p.c_str(), &st) == 0});
    }
    if (a.kind == RootKind::Home) spec.homes.push_back(a.path);
  }
  Check c;
  c.watch_ = Watch::before(spec);
  return c;
}

std::vector<LeftBehind> Check::after(const Trusted& trusted, WalkCost* cost) const {
  // Hidden objects first: moving one back restores the place the other checks then look at.
  std::vector<LeftBehind> out = masks_.after();
  for (LeftBehind& l : watch_.after(trusted, cost)) out.push_back(std::move(l));
  return out;
}

}  // namespace paddock::gate
