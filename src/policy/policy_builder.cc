// PolicyBuilder: records rules and settings, then resolves and validates everything in build().
// The first error wins; nothing half-valid escapes.
#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "paddock/policy.h"
#include "paddock/state.h"
#include "policy/env_names.h"
#include "policy/path_util.h"
#include "policy/protected_paths.h"
#include "policy/sensitive_paths.h"
#include "policy/system_paths.h"

namespace paddock {
namespace {

const char* const kBuiltInDetail = "system default (read-only)";

// A resolved rule plus whether it counts as "naming the path explicitly" (flags, profiles and an
// explicitly requested cwd do; built-in system paths and the default cwd rule do not).
struct Resolved {
  PathRule rule;
  bool explicit_rule = false;
  // The path as written, made absolute and lexically normal, symlinks not resolved ("" for the
  // built-in rules): a rule lifts a mask only when this names the masked path (issue 12, item 5).
  std::string typed;
};

void put_rule(std::vector<Resolved>& rules, Resolved r) {
  for (auto& existing : rules) {
    if (existing.rule.path == r.rule.path && existing.rule.symlink_target.empty() &&
        r.rule.symlink_target.empty()) {
      existing = std::move(r);  // later rules replace earlier ones: flags override profiles
      return;
    }
  }
  rules.push_back(std::move(r));
}

// The deepest non-symlink rule whose path contains `p`, or nullptr.
const Resolved* deepest_rule(const std::vector<Resolved>& rules, std::string_view p) {
  const Resolved* best = nullptr;
  for (const auto& r : rules) {
    if (!r.rule.symlink_target.empty()) continue;
    if (!path::is_at_or_under(p, r.rule.path)) continue;
    if (best == nullptr || r.rule.path.size() > best->rule.path.size()) best = &r;
  }
  return best;
}

// The host object at `p` is visible in the sandbox through a rule: some rule contains it and no
// sandbox-private area (the empty HOME, /tmp, /dev, /proc) lies deeper than that rule.
const Resolved* visible_through(const std::vector<Resolved>& rules, std::string_view home,
                                std::string_view p) {
  const Resolved* r = deepest_rule(rules, p);
  if (r == nullptr) return nullptr;
  const std::string_view private_areas[] = {home, "/tmp", "/dev", "/proc", "/sys"};
  for (std::string_view area : private_areas) {
    if (path::is_at_or_under(p, area) && area.size() > r->rule.path.size()) return nullptr;
  }
  return r;
}

// A rule names `p` (the real path of a sensitive or protected entry; `as_listed` its path as the
// list has it) when it resolves to `p` *and* was written as `p` or `as_listed`: reaching it through
// a symlink planted elsewhere (vendor -> ~/.ssh) does not count.
bool named_explicitly(const std::vector<Resolved>& rules, std::string_view p, std::string_view as_listed = {}) {
  return std::any_of(rules.begin(), rules.end(), [&](const Resolved& r) {
    return r.explicit_rule && r.rule.symlink_target.empty() && r.rule.path == p &&
           (r.typed.empty() || r.typed == p || (!as_listed.empty() && r.typed == as_listed));
  });
}

bool missing_errno(int e) { return e == ENOENT || e == ENOTDIR; }

// Resolves many paths that share parents (~/.config/..., proj/.git/...) with few syscalls: one
// lstat per path, and the parent's canonical form computed once; a directory asked about many
// times (HOME) is read once instead. Start-up time matters.
class Resolver {
 public:
  explicit Resolver(const FsView& fs) : fs_(fs) {}

  // Directories holding at least this many of the paths about to be resolved are listed.
  static constexpr int kListAt = 16;

  // Announces the paths existing() will be asked about, so busy directories can be listed.
  void expect(const std::vector<std::string_view>& paths) {
    std::vector<std::pair<std::string_view, int>> per_dir;  // a handful of directories
    for (std::string_view p : paths) {
      const std::size_t slash = p.rfind('/');
      if (slash == std::string_view::npos || slash == 0) continue;
      const std::string_view dir = p.substr(0, slash);
      auto it = std::find_if(per_dir.rbegin(), per_dir.rend(), [&](const auto& e) { return e.first == dir; });
      if (it == per_dir.rend()) per_dir.emplace_back(dir, 1);
      else ++it->second;
    }
    for (const auto& [dir, n] : per_dir) {
      if (n >= kListAt) busy_.emplace_back(dir);
    }
  }

  // The canonical path of an existing object, or nullopt when it is absent.
  std::optional<std::string> existing(const std::string& p) {
    if (p == "/") return p;
    const std::size_t slash = p.rfind('/');
    const std::string_view lexical_dir = slash == 0 ? std::string_view("/") : std::string_view(p).substr(0, slash);
    Dir* dir = parent_of(lexical_dir);
    if (dir == nullptr) return std::nullopt;  // no parent, no child: not even an lstat
    const std::string_view name = std::string_view(p).substr(slash + 1);
    std::string at = dir->path == lexical_dir ? p : path::join(dir->path, name);
    FsView::Kind k = kind_in(*dir, name, at);
    if (k == FsView::Kind::Missing) return std::nullopt;
    if (k == FsView::Kind::Other) {  // a symlink (or a special file): resolve it
      auto c = fs_.canonical(at);
      if (!c) return std::nullopt;
      return std::move(*c);
    }
    return at;
  }

 private:
  struct Dir {
    std::string path;  // canonical
    bool busy = false;  // list it instead of an lstat per entry
    bool list_tried = false;
    std::vector<FsView::DirEntry> entries;  // sorted by name, when listed
    bool listed = false;
  };

  // The canonical form of a directory, computed from its parent's with one lstat; nullptr when
  // it is absent or not a directory.
  Dir* parent_of(std::string_view dir) {
    if (dir == "/") return &root_;
    // Paths come grouped by directory (~/x, ~/y, ~/.config/z, ...): remember the last answer.
    if (last_ != nullptr && last_->first == dir) return last_->second ? &*last_->second : nullptr;
    auto it = dirs_.find(dir);
    if (it == dirs_.end()) {
      const std::size_t slash = dir.rfind('/');
      const std::string_view lexical_up = slash == 0 ? std::string_view("/") : dir.substr(0, slash);
      std::optional<Dir> result;
      if (Dir* up = parent_of(lexical_up)) {
        std::string at = up->path == lexical_up ? std::string(dir) : path::join(up->path, dir.substr(slash + 1));
        FsView::Kind k = kind_in(*up, dir.substr(slash + 1), at);
        if (k == FsView::Kind::Dir) {
          result.emplace().path = std::move(at);
        } else if (k == FsView::Kind::Other) {
          if (auto c = fs_.canonical(at); c && fs_.kind(*c) == FsView::Kind::Dir) result.emplace().path = std::move(*c);
        }
      }
      if (result) result->busy = std::find(busy_.begin(), busy_.end(), dir) != busy_.end();
      it = dirs_.emplace(std::string(dir), std::move(result)).first;
    }
    last_ = &*it;
    return it->second ? &*it->second : nullptr;
  }

  // kind() of `name` in `dir` (`at` is the full path): from the directory's listing when it is
  // a busy one, else one lstat.
  FsView::Kind kind_in(Dir& dir, std::string_view name, const std::string& at) {
    if (dir.busy && !dir.list_tried) {
      dir.list_tried = true;
      if (auto entries = fs_.list(dir.path)) {
        dir.entries = std::move(*entries);
        std::sort(dir.entries.begin(), dir.entries.end(),
                  [](const FsView::DirEntry& a, const FsView::DirEntry& b) { return a.name < b.name; });
        dir.listed = true;
      }
    }
    if (dir.listed) {
      auto e = std::lower_bound(dir.entries.begin(), dir.entries.end(), name,
                                [](const FsView::DirEntry& a, std::string_view n) { return a.name < n; });
      if (e == dir.entries.end() || e->name != name) return FsView::Kind::Missing;
      if (e->known) return e->kind;
    }
    return fs_.kind(at);
  }

  const FsView& fs_;
  Dir root_{"/"};
  std::vector<std::string_view> busy_;  // lexical directories to list (views into the caller's paths)
  using Dirs = std::map<std::string, std::optional<Dir>, std::less<>>;
  Dirs dirs_;  // by lexical path
  Dirs::value_type* last_ = nullptr;  // map nodes never move
};

}  // namespace

PolicyBuilder::PolicyBuilder(HostContext ctx) : ctx_(std::move(ctx)) {
  if (!ctx_.fs) ctx_.fs = real_fs();
}

PolicyBuilder& PolicyBuilder::allow(std::string_view p, Access access, Origin origin) {
  if (p.empty()) return fail(make_error("empty path", origin.detail));
  if (access == Access::None) {
    return fail(make_error("a path rule needs read, write or read+write access", origin.detail));
  }
  rules_.push_back({std::string(p), access, std::move(origin), false});
  return *this;
}

PolicyBuilder& PolicyBuilder::allow_optional(std::string_view p, Access access, Origin origin) {
  const std::size_t before = rules_.size();
  allow(p, access, std::move(origin));
  if (rules_.size() > before) rules_.back().optional = true;
  return *this;
}

PolicyBuilder& PolicyBuilder::profile_file(std::string_view path, std::string_view where) {
  profile_files_.emplace_back(std::string(path), std::string(where));
  return *this;
}

PolicyBuilder& PolicyBuilder::create_dir(std::string_view p, Origin origin) {
  if (p.empty()) return fail(make_error("empty path", origin.detail));
  create_.push_back({std::string(p), Access::None, std::move(origin), true});
  return *this;
}

PolicyBuilder& PolicyBuilder::create_file(std::string_view p, std::string content, Origin origin) {
  if (p.empty()) return fail(make_error("empty path", origin.detail));
  create_files_.push_back({{std::string(p), Access::None, std::move(origin), true}, std::move(content)});
  return *this;
}

PolicyBuilder& PolicyBuilder::cwd_is_jail_workspace(bool on) {
  cwd_is_jail_workspace_ = on;
  return *this;
}

PolicyBuilder& PolicyBuilder::hide(std::string_view p, std::string_view reason) {
  if (p.empty() || p[0] != '/') return fail(make_error("a hidden directory must be an absolute path", std::string(p)));
  hidden_.emplace_back(path::normalize(p), std::string(reason));
  return *this;
}

PolicyBuilder& PolicyBuilder::command_setup(CommandSetup setup) {
  command_setup_ = std::move(setup);  // a profile's own [command] replaces the one it extends
  return *this;
}

std::vector<PolicyBuilder::FileToCreate> PolicyBuilder::files_to_create() const {
  std::vector<FileToCreate> out;
  for (const auto& [c, content] : create_files_)
    out.push_back({path::normalize(absolute_path(c.given, ctx_)), content, c.origin});
  return out;
}

std::vector<PolicyBuilder::DirToCreate> PolicyBuilder::dirs_to_create() const {
  std::vector<DirToCreate> out;
  for (const auto& c : create_) out.push_back({path::normalize(absolute_path(c.given, ctx_)), c.origin});
  return out;
}

PolicyBuilder& PolicyBuilder::cwd_access(Access access, Origin origin) {
  cwd_access_ = access;
  cwd_origin_ = std::move(origin);
  cwd_explicit_ = true;
  return *this;
}

PolicyBuilder& PolicyBuilder::no_system_defaults() {
  system_defaults_ = false;
  return *this;
}

PolicyBuilder& PolicyBuilder::network(NetMode mode) {
  network_.mode = mode;
  return *this;
}

// Domain patterns are only checked for shape here; their grammar (hosts, wildcards, ports,
// address ranges) belongs to the egress filter (src/net/host_rule.h), which parses them again.
static bool plausible_domain_pattern(std::string_view p) {
  return !p.empty() && p.find_first_of(" \t\r\n") == std::string_view::npos;
}

PolicyBuilder& PolicyBuilder::allow_domain(std::string_view pattern, std::string_view where) {
  if (!plausible_domain_pattern(pattern)) {
    return fail(make_error("invalid domain pattern \"" + std::string(pattern) + "\"", std::string(where),
                           "use host, *.domain, host:port or an address range (docs/network.md)"));
  }
  network_.allow_domains.emplace_back(pattern);
  network_.allow_where.resize(network_.allow_domains.size() - 1);
  network_.allow_where.emplace_back(where);
  return *this;
}

PolicyBuilder& PolicyBuilder::deny_domain(std::string_view pattern, std::string_view where) {
  if (!plausible_domain_pattern(pattern)) {
    return fail(make_error("invalid domain pattern \"" + std::string(pattern) + "\"", std::string(where),
                           "use host, *.domain, host:port or an address range (docs/network.md)"));
  }
  network_.deny_domains.emplace_back(pattern);
  network_.deny_where.resize(network_.deny_domains.size() - 1);
  network_.deny_where.emplace_back(where);
  return *this;
}

PolicyBuilder& PolicyBuilder::pass_env(std::string_view name) {
  if (!valid_env_name(name)) {
    return fail(make_error("invalid environment variable name \"" + std::string(name) + "\"",
                           "--env", kEnvNameHint));
  }
  if (std::find(env_.pass.begin(), env_.pass.end(), name) == env_.pass.end()) {
    env_.pass.emplace_back(name);
  }
  return *this;
}

PolicyBuilder& PolicyBuilder::set_env(std::string_view name, std::string_view value) {
  if (!valid_env_name(name)) {
    return fail(make_error("invalid environment variable name \"" + std::string(name) + "\"",
                           "--env", kEnvNameHint));
  }
  if (value.find('\0') != std::string_view::npos) {
    return fail(make_error("environment value contains a NUL byte", std::string(name)));
  }
  for (auto& kv : env_.set) {
    if (kv.first == name) {
      kv.second = std::string(value);
      return *this;
    }
  }
  env_.set.emplace_back(std::string(name), std::string(value));
  return *this;
}

PolicyBuilder& PolicyBuilder::limits(const Limits& l) {
  limits_ = l;
  return *this;
}

PolicyBuilder& PolicyBuilder::require_namespaces(bool on) {
  require_namespaces_ = on;
  return *this;
}

PolicyBuilder& PolicyBuilder::refuse_discarded_writes(bool on) {
  refuse_discarded_writes_ = on;
  return *this;
}

PolicyBuilder& PolicyBuilder::profile_name(std::string_view name) {
  profile_ = std::string(name);
  return *this;
}

PolicyBuilder& PolicyBuilder::fail(Error e) {
  if (!first_error_) first_error_ = std::move(e);
  return *this;
}

Result<Policy> PolicyBuilder::build() const {
  if (first_error_) return *first_error_;
  const FsView& fs = *ctx_.fs;

  Policy p;
  p.user = ctx_.user;
  p.profile = profile_;
  p.network = network_;
  p.env = env_;
  p.limits = limits_;
  p.require_namespaces = require_namespaces_;
  p.refuse_discarded_writes = refuse_discarded_writes_;

  if (ctx_.cwd.empty() || ctx_.cwd[0] != '/') {
    return make_error("the current directory is not an absolute path", ctx_.cwd);
  }
  auto cwd = fs.canonical(path::normalize(ctx_.cwd));
  if (!cwd) return errno_error("cannot resolve the current directory", cwd.error().sys_errno, ctx_.cwd);
  p.cwd = *cwd;
  if (ctx_.home.empty() || ctx_.home[0] != '/') {
    return make_error("HOME is not an absolute path", ctx_.home, "set HOME to an absolute path");
  }
  auto home = fs.canonical(path::normalize(ctx_.home));
  p.home = home ? *home : path::normalize(ctx_.home);
  if (p.home == "/") {
    // The sandbox's HOME is a fresh tmpfs at this path: it cannot be the root of the filesystem.
    return make_error("HOME is the root directory", "HOME", "set HOME to a directory of its own");
  }

  std::vector<Resolved> rules;

  // 1. The system, read-only.
  if (system_defaults_) {
    std::vector<std::string> symlink_targets;
    // The host system, read-only (policy/system_paths.h). Each entry may be absent (skipped with
    // a note) and may be a symlink (merged /usr: /bin -> usr/bin), which the engine recreates
    // instead of binding.
    for (const std::string& s : system_paths()) {
      const FsView::Kind kind = fs.kind(s);
      if (kind == FsView::Kind::Missing) {
        p.notes.push_back("system path " + s + " is absent on this host; skipped");
        continue;
      }
      // A directory or file right under "/" that is not a symlink is its own canonical form.
      const bool plain = kind != FsView::Kind::Other && path::parent(s) == "/";
      auto c = plain ? Result<std::string>(s) : fs.canonical(s);
      if (!c) {
        p.notes.push_back("system path " + s + " cannot be resolved (" + c.error().describe() +
                          "); skipped");
        continue;
      }
      PathRule r{s, s, Access::Read, {Origin::Kind::BuiltIn, kBuiltInDetail}, true, {}};
      if (*c != s) {
        r.symlink_target = *c;
        symlink_targets.push_back(*c);
      }
      put_rule(rules, {std::move(r), false});
    }
    // A system symlink whose target no system rule covers gets its target bound as well.
    for (const auto& t : symlink_targets) {
      if (deepest_rule(rules, t) == nullptr) {
        put_rule(rules, {PathRule{t, t, Access::Read, {Origin::Kind::BuiltIn, kBuiltInDetail}, true, {}},
                         false});
      }
    }
  }

  // 2. User rules (profile first, then flags, in the order given), resolved through the FsView.
  bool cwd_named = false;
  struct TypedLink {
    std::string typed, target;
    PendingRule pending;
  };
  std::vector<TypedLink> typed_links;  // rules written through a symlink (see 3b)
  std::vector<Resolved> user_rules;
  for (const auto& pending : rules_) {
    std::string abs = absolute_path(pending.given, ctx_);
    auto c = fs.canonical(abs);
    if (!c) {
      if (missing_errno(c.error().sys_errno)) {
        if (pending.optional) {
          p.notes.push_back(pending.origin.detail + ": " + abs + " does not exist; skipped");
          continue;
        }
        return make_error(abs + ": no such file or directory", pending.origin.detail,
                          "create it first, or drop the rule");
      }
      return errno_error(abs + ": cannot resolve", c.error().sys_errno, pending.origin.detail);
    }
    if (*c == p.cwd) cwd_named = true;
    // HOME as the user's environment spells it may itself go through a symlink (/home ->
    // /var/home): that one is the user's own, so "typed" is spelled with the resolved HOME.
    std::string typed = path::normalize(abs);
    const std::string env_home = path::normalize(ctx_.home);
    if (env_home != p.home && path::is_at_or_under(typed, env_home)) {
      typed = typed == env_home ? p.home : path::join(p.home, typed.substr(env_home.size() + 1));
    }
    user_rules.push_back(
        {PathRule{*c, pending.given, pending.access, pending.origin, pending.optional, {}}, true, typed});
    if (typed != *c) typed_links.push_back({typed, *c, pending});
  }

  // paddock's own state (paddock/state.h: the undo store, jails wherever they are, root's system
  // state): no user rule may name it or anything in it, as written or as resolved, and the current
  // directory may not lie inside it.
  const StateLayout state = ctx_.state.empty() ? state_layout({ctx_.uid, ctx_.home, {}, {}}) : ctx_.state;
  std::vector<std::string> state_forms;
  for (const std::string& state_dir : state.masked()) {
    state_forms.push_back(state_dir);
    if (auto real = fs.canonical(state_dir); real && *real != state_dir) state_forms.push_back(*real);
  }
  // A jail's workspace, named by paddock itself: strictly below the jail store, nothing else of it.
  bool cwd_in_jail_store = false;
  if (cwd_is_jail_workspace_ && !state.jails_dir.empty() && state.jails_dir[0] == '/') {
    auto real = fs.canonical(state.jails_dir);
    for (const std::string& form : {state.jails_dir, real ? *real : state.jails_dir})
      cwd_in_jail_store = cwd_in_jail_store || path::is_strictly_under(p.cwd, form);
  }
  for (const auto& r : user_rules) {
    for (const auto& form : state_forms) {
      if (!path::is_at_or_under(r.rule.path, form) && !path::is_at_or_under(r.typed, form)) continue;
      return make_error("refusing to grant " + r.rule.path + ": " + form + " is " + kStateDirReason,
                        r.rule.origin.detail, "grant a directory outside " + form);
    }
  }
  if (cwd_access_.value_or(Access::ReadWrite) != Access::None && !cwd_in_jail_store) {
    for (const auto& form : state_forms) {
      if (path::is_at_or_under(p.cwd, form)) {
        return make_error("the current directory is inside " + form + ", " + kStateDirReason, p.cwd,
                          "cd elsewhere, or pass --cwd-access none");
      }
    }
  }

  std::vector<SensitivePath> sensitive = sensitive_path_list(p.home);
  // $HOME is not the passwd entry's home: that one's secrets are hidden as well.
  if (!ctx_.passwd_home.empty() && ctx_.passwd_home[0] == '/') {
    auto real = fs.canonical(path::normalize(ctx_.passwd_home));
    const std::string real_home = real ? *real : path::normalize(ctx_.passwd_home);
    if (real_home != p.home && real_home != "/") {
      for (auto& s : sensitive_path_list(real_home)) {
        const bool dup = std::any_of(sensitive.begin(), sensitive.end(),
                                     [&](const SensitivePath& e) { return e.path == s.path; });
        if (!dup) sensitive.push_back(std::move(s));
      }
    }
  }

  // 3. The cwd, unless left out. Added before the user rules so that a rule naming it wins.
  const Access cwd_acc = cwd_access_.value_or(Access::ReadWrite);
  const bool cwd_default = cwd_acc != Access::None && !cwd_named;
  if (cwd_default) {
    if (!cwd_explicit_ && (p.cwd == "/" || p.cwd == p.home)) {
      const bool is_home = p.cwd == p.home;
      return make_error(
          std::string("refusing to give ") + std::string(to_string(cwd_acc)) + " access to " +
              (is_home ? "your whole home directory" : "the whole filesystem") +
              " (the current directory is " + p.cwd + ")",
          p.cwd,
          std::string("cd into a project directory, or pass --allow ") + (is_home ? "~" : "/") +
              " explicitly if you really mean it");
    }
    if (!cwd_explicit_) {
      for (const auto& d : sensitive) {
        if (path::is_at_or_under(p.cwd, d.path)) {
          return make_error(std::string("the current directory is inside a sensitive path (") + d.reason + ")",
                            p.cwd, "pass --allow " + p.cwd + " explicitly if you really mean it");
        }
      }
    }
    put_rule(rules, {PathRule{p.cwd, ".", cwd_acc, cwd_origin_, false, {}}, cwd_explicit_});
  }
  for (auto& r : user_rules) put_rule(rules, std::move(r));

  // 3b. A rule written through a symlink (an npm .bin launcher, an nvm shim, ~/.local/bin/x)
  // binds the link's target; so that the name the user typed works too, the typed path is made a
  // symlink to that target inside the sandbox when nothing else shows it there (issue 13, bug 4).
  // It grants nothing: the target's own rule decides access. Never inside a sensitive path.
  for (auto& l : typed_links) {
    if (visible_through(rules, p.home, l.typed) != nullptr) continue;
    const bool in_sensitive = std::any_of(sensitive.begin(), sensitive.end(), [&](const SensitivePath& d) {
      return path::is_at_or_under(l.typed, d.path);
    });
    if (in_sensitive) continue;
    put_rule(rules, {PathRule{l.typed, l.pending.given, l.pending.access, l.pending.origin, true, l.target},
                     false});
  }

  // The protected-path candidates (step 5), known now so the resolver sees every path at once.
  // (The entries are clean relative paths, so a join is already normal.)
  std::vector<std::pair<std::string, const char*>> candidates;
  for (const auto& r : rules) {
    if (!r.rule.symlink_target.empty() || !grants(r.rule.access, Access::Write)) continue;
    // Relative to the rule and to each of its ancestors, so that "--allow proj/.git" still
    // protects proj/.git/hooks: ancestor/entry counts when the entry lies at or under the
    // rule's path relative to that ancestor.
    const std::string& root = r.rule.path;
    for (std::string a = root;; a = path::parent(a)) {
      const std::string_view rel = a == root ? std::string_view()
                                             : std::string_view(root).substr(a == "/" ? 1 : a.size() + 1);
      for (const auto& e : workspace_protected_entries()) {
        if (!rel.empty() && !path::is_at_or_under(e.path, rel)) continue;
        candidates.emplace_back(path::join(a, e.path), e.reason);
      }
      if (a == "/") break;
    }
  }
  for (const auto& e : home_protected_entries()) {
    candidates.emplace_back(path::join(p.home, e.path), e.reason);
  }

  // 3c. A rule that reaches a sensitive path through a symlink is refused: what a symlink points
  // at can be chosen by whoever wrote it (a sandbox, in an earlier run), and the user did not
  // name the secret. Naming the sensitive path itself is the way to grant it.
  for (const auto& r : rules) {
    if (!r.explicit_rule || r.typed.empty() || r.typed == r.rule.path || !r.rule.symlink_target.empty()) continue;
    for (const auto& d : sensitive) {
      if (path::is_at_or_under(r.typed, d.path)) continue;  // written as the sensitive path itself
      auto real = fs.canonical(d.path);
      const bool reaches = path::is_at_or_under(r.rule.path, d.path) ||
                           (real && path::is_at_or_under(r.rule.path, *real));
      if (!reaches) continue;
      return make_error(r.typed + " leads through a symlink to " + r.rule.path + ", inside " + d.path + " (" +
                            d.reason + "); a sensitive path is granted only when named literally",
                        r.rule.origin.detail, "if you mean it, name it: " + d.path);
    }
  }

  // 4. Sensitive paths visible through some rule are denied, unless a rule names them exactly.
  Resolver resolver(fs);
  {
    std::vector<std::string_view> all;
    all.reserve(sensitive.size() + candidates.size());
    for (const auto& d : sensitive) all.push_back(d.path);
    for (const auto& c : candidates) all.push_back(c.first);
    resolver.expect(all);
  }
  std::set<std::string, std::less<>> seen;
  std::vector<DeniedPath> absent_writable_denied;
  for (const auto& d : sensitive) {
    const std::optional<std::string> real = resolver.existing(d.path);
    const std::string* forms[] = {&d.path, real && *real != d.path ? &*real : nullptr};
    for (const std::string* c : forms) {
      if (c == nullptr) continue;
      const std::string& cand = *c;
      const Resolved* r = visible_through(rules, p.home, cand);
      if (r == nullptr) continue;                   // not visible anyway
      if (named_explicitly(rules, cand, d.path)) continue;  // the user's per-path override
      if (!seen.insert(cand).second) continue;
      p.denied.push_back({cand, d.reason});
      // An absent one cannot be masked, and inside a writable area the sandbox could create it
      // (~/.aws/config with credential_process, ~/.npmrc, ~/.kube/config exec plugins: the host
      // runs what they name). Watch it like an absent protected path.
      if (!real && grants(r->rule.access, Access::Write)) {
        absent_writable_denied.push_back({cand, d.reason});
      }
    }
  }

  // paddock's own state is masked wherever a rule shows it; no rule lifts that. Absent and
  // writable, the sandbox could create it: it is watched (and `paddock run` creates it first).
  for (const auto& form : state_forms) {
    const Resolved* r = visible_through(rules, p.home, form);
    if (r == nullptr || !seen.insert(form).second) continue;
    p.denied.push_back({form, kStateDirReason});
    if (!resolver.existing(form) && grants(r->rule.access, Access::Write)) {
      absent_writable_denied.push_back({form, kStateDirReason});
    }
  }

  // What the caller hides (hide()): masked wherever a rule shows it, as written and as resolved.
  for (const auto& [given, reason] : hidden_) {
    std::vector<std::string> forms{given};
    if (auto real = fs.canonical(given); real && *real != given) forms.push_back(*real);
    for (const std::string& form : forms) {
      if (path::is_at_or_under(p.cwd, form))
        return make_error("the current directory is inside " + form + ", " + reason, p.cwd);
      const Resolved* r = visible_through(rules, p.home, form);
      if (r == nullptr || !seen.insert(form).second) continue;
      p.denied.push_back({form, reason});
    }
  }

  // The default cwd must not be a sensitive path reached through a symlink either.
  if (cwd_default && !cwd_explicit_) {
    for (const auto& d : p.denied) {
      if (path::is_at_or_under(p.cwd, d.path)) {
        return make_error("the current directory is a sensitive path (" + d.reason + ")", p.cwd,
                          "pass --allow " + p.cwd + " explicitly if you really mean it");
      }
    }
  }

  // 5. Protected paths inside writable areas stay read-only, unless a rule names them exactly.
  seen.clear();
  for (const auto& [given_cand, reason] : candidates) {
    // An existing entry is protected where it really is (proj/.git may be a symlink).
    const std::optional<std::string> real = resolver.existing(given_cand);
    const std::string& cand = real ? *real : given_cand;
    const Resolved* r = visible_through(rules, p.home, cand);
    if (r == nullptr || !grants(r->rule.access, Access::Write)) continue;
    if (named_explicitly(rules, cand, given_cand)) continue;
    // Hidden, unless the rule that shows it lies inside the mask (bound over it).
    bool hidden = std::any_of(p.denied.begin(), p.denied.end(), [&](const DeniedPath& d) {
      return path::is_at_or_under(cand, d.path) && !path::is_strictly_under(r->rule.path, d.path);
    });
    if (hidden) continue;
    if (!seen.insert(cand).second) continue;
    p.protected_paths.push_back({cand, reason, real.has_value()});
  }

  for (const auto& d : absent_writable_denied) {
    if (!seen.insert(d.path).second) continue;
    p.protected_paths.push_back({d.path, d.reason + "; absent, watched", false});
  }

  // 6. The profiles this policy came from must lie where its sandbox cannot write (issue 18):
  // neither the file nor any directory or symlink on its path, as written or resolved, may be
  // under a writable rule, or the sandbox could rewrite (or swap) the next run's policy.
  for (const auto& [file, where] : profile_files_) {
    for (std::string a = path::normalize(file);; a = path::parent(a)) {
      auto real = fs.canonical(a);
      for (const std::string* form : {&a, real ? &*real : nullptr}) {
        if (form == nullptr) continue;
        const Resolved* r = deepest_rule(rules, *form);
        if (r == nullptr || !grants(r->rule.access, Access::Write)) continue;
        if (visible_through(rules, p.home, *form) == nullptr) continue;  // in a sandbox-private area
        return make_error(file + ": the sandbox of this run could change this profile (" + *form +
                              " is writable through " + r->rule.origin.detail + ")",
                          where, "keep profiles where runs cannot write, e.g. " + path::join(p.home, ".config/paddock/profiles/"));
      }
      if (a == "/") break;
    }
  }

  p.paths.reserve(rules.size());
  for (auto& r : rules) p.paths.push_back(std::move(r.rule));
  return p;
}

}  // namespace paddock
