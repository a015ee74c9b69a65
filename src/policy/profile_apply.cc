// Applying a TOML profile to a PolicyBuilder: the schema of docs/profiles.md. Every error names
// FILE:LINE:COL of the offending key or value, and hints at the closest valid word.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "paddock/profile.h"
#include "policy/env_names.h"
#include "policy/path_util.h"
#include "policy/profile_keys.h"
#include "policy/profile_quick.h"
#include "policy/toml_reader.h"
#include "policy/units.h"

namespace paddock {
namespace {

constexpr int kMaxExtendsDepth = 16;

const std::vector<std::string> kCwdValues = {"read+write", "read", "write", "none"};
const std::vector<std::string> kNetModes = {"off", "on", "filtered"};

// Reads one profile file into the builder. The first error stops it.
class ProfileReader {
 public:
  ProfileReader(const ProfileSource& src, PolicyBuilder& b, const HostContext& ctx,
                std::vector<std::string>& chain)
      : src_(src), b_(b), ctx_(ctx), chain_(chain), r_(src.file) {}

  Result<void> run() {
    if (is_description_only_profile(src_.text)) {  // nothing to apply but the name
      b_.profile_name(src_.name);
      return ok_result();
    }
    auto parsed = r_.parse(src_.text);
    if (!parsed) return std::move(parsed).take_error();
    const toml::table& doc = *parsed;

    if (!r_.check_keys(doc, "", profile_keys(""))) return *r_.error();
    if (const toml::node* ext = doc.get("extends")) {
      if (auto r = apply_parent(*ext); !r) return r;
    }
    if (const toml::node* d = doc.get("description"); d != nullptr && !d->is_string()) {
      return fail(*d, "description must be a string (got " + TomlReader::type_name(*d) + ")");
    }
    b_.profile_name(src_.name);

    if (auto* t = section(doc, "filesystem", profile_keys("filesystem"))) filesystem(*t);
    if (auto* t = section(doc, "network", profile_keys("network"))) network(*t);
    if (auto* t = section(doc, "env", profile_keys("env"))) env(*t);
    if (auto* t = section(doc, "limits", profile_keys("limits"))) limits(*t);
    if (auto* t = section(doc, "sandbox", profile_keys("sandbox"))) sandbox(*t);
    if (auto* t = section(doc, "command", profile_keys("command"))) command(*t);
    if (auto* t = section(doc, "undo", profile_keys("undo"))) undo(*t);
    if (auto* t = section(doc, "footer", profile_keys("footer"))) {
      if (auto v = flag(*t, "footer", "quiet")) b_.quiet_footer(*v);
    }
    if (r_.failed()) return *r_.error();
    return ok_result();
  }

 private:
  std::string at(const toml::source_region& r) const { return r_.at(r); }
  Error fail_at(const toml::source_region& r, std::string message, std::string hint = {}) {
    return r_.fail_at(r, std::move(message), std::move(hint));
  }
  Error fail(const toml::node& n, std::string message, std::string hint = {}) {
    return r_.fail(n, std::move(message), std::move(hint));
  }
  static std::string type_name(const toml::node& n) { return TomlReader::type_name(n); }

  const toml::table* section(const toml::table& doc, const char* name, const std::vector<std::string>& known) {
    const toml::table* t = r_.table(doc, name, name, "write it as the table [" + std::string(name) + "]");
    if (t == nullptr || !r_.check_keys(*t, "[" + std::string(name) + "]", known)) return nullptr;
    return t;
  }

  Result<void> apply_parent(const toml::node& ext) {
    const auto* s = ext.as_string();
    if (s == nullptr) return fail(ext, "extends must be a profile name (got " + type_name(ext) + ")");
    std::string target = s->get();
    // A relative file path ("base.toml", "lib/base.toml") is relative to the profile that names
    // it, never to the current directory: the project is where the sandbox writes (issue 18).
    const bool file_like = target.find('/') != std::string::npos ||
                           (target.size() > 5 && target.compare(target.size() - 5, 5, ".toml") == 0);
    if (file_like && !target.empty() && target[0] != '/' && target[0] != '~') {
      if (src_.file.empty() || src_.file[0] != '/') {
        return fail(ext, "extends = \"" + target + "\": a relative file needs a profile file to be relative to",
                    "name the file by an absolute path");
      }
      target = path::normalize(path::join(path::parent(src_.file), target));
    }
    if (static_cast<int>(chain_.size()) >= kMaxExtendsDepth) {
      return fail(ext, "extends nests more than " + std::to_string(kMaxExtendsDepth) + " profiles");
    }
    auto parent = find_profile(target, ctx_);
    if (!parent) return fail(ext, parent.error().describe(), parent.error().hint);
    if (std::find(chain_.begin(), chain_.end(), parent->file) != chain_.end()) {
      std::string cycle;
      for (const auto& f : chain_) cycle += f + " -> ";
      return fail(ext, "profiles extend each other in a cycle: " + cycle + parent->file);
    }
    chain_.push_back(parent->file);
    if (!parent->file.empty() && parent->file[0] == '/') b_.profile_file(parent->file, at(ext.source()));
    ProfileReader reader(*parent, b_, ctx_, chain_);
    auto r = reader.run();
    chain_.pop_back();
    return r;
  }

  // "[TABLE] KEY": how a value is named in messages.
  static std::string what(const char* table, const char* key) { return "[" + std::string(table) + "] " + key; }

  // An array of strings; errors point at the offending element.
  std::optional<std::vector<TomlString>> strings(const toml::table& t, const char* table, const char* key) {
    return r_.strings(t, key, what(table, key));
  }

  void filesystem(const toml::table& t) {
    struct List {
      const char* key;
      Access access;
      bool optional;
    };
    static const List lists[] = {
        {"allow", Access::ReadWrite, false},          {"read", Access::Read, false},
        {"write", Access::Write, false},              {"allow_if_exists", Access::ReadWrite, true},
        {"read_if_exists", Access::Read, true},       {"write_if_exists", Access::Write, true},
    };
    for (const auto& l : lists) {
      auto items = strings(t, "filesystem", l.key);
      if (!items) continue;
      for (const auto& [p, pos, node] : *items) {
        if (p.empty()) {
          fail(*t.get(l.key), "[filesystem] " + std::string(l.key) + " has an empty path");
          return;
        }
        Origin origin{Origin::Kind::Profile, pos};
        if (l.optional) {
          b_.allow_optional(p, l.access, origin);
        } else {
          b_.allow(p, l.access, origin);
        }
      }
    }
    if (auto items = strings(t, "filesystem", "create")) {
      for (const auto& [p, pos, node] : *items) {
        // Only the user's own state directories: "~/x" (nothing above HOME, no "..").
        if (p.size() < 3 || p.compare(0, 2, "~/") != 0 || p.find("..") != std::string::npos) {
          fail(*node, "[filesystem] create takes directories under HOME, written \"~/NAME\" (got \"" + p + "\")");
          return;
        }
        b_.create_dir(p, {Origin::Kind::Profile, pos});
      }
    }
    if (const toml::node* n = t.get("create_files")) {
      // { "~/.claude.json" = "{}" }: a state file the agent must find, made with this content
      // when missing (an agent that finds none starts over, and its writes inside are lost).
      const toml::table* files = n->as_table();
      if (files == nullptr) {
        fail(*n, "[filesystem] create_files must be a table of \"~/NAME\" = \"initial content\" (got " +
                     type_name(*n) + ")");
        return;
      }
      for (const auto& [key, value] : *files) {
        const std::string p(key.str());
        if (p.size() < 3 || p.compare(0, 2, "~/") != 0 || p.find("..") != std::string::npos || p.back() == '/') {
          fail(value, "[filesystem] create_files takes files under HOME, written \"~/NAME\" (got \"" + p + "\")");
          return;
        }
        const auto* content = value.as_string();
        if (content == nullptr || content->get().size() > 65536) {
          fail(value, "[filesystem] create_files: the initial content of " + p + " must be a string of at most 64 KiB");
          return;
        }
        b_.create_file(p, content->get(), {Origin::Kind::Profile, at(value.source())});
      }
    }
    if (auto v = r_.choice(t, "cwd", "[filesystem] cwd", kCwdValues)) {
      b_.cwd_access(*parse_access(*v), Origin{Origin::Kind::Profile, at(t.get("cwd")->source())});
    }
  }

  void network(const toml::table& t) {
    std::optional<NetMode> mode;
    if (auto v = r_.choice(t, "mode", "[network] mode", kNetModes)) {
      mode = *v == "off" ? NetMode::Off : *v == "on" ? NetMode::Host : NetMode::Filtered;
    }
    if (r_.failed()) return;
    auto allow = strings(t, "network", "allow");
    auto deny = strings(t, "network", "deny");
    if (r_.failed()) return;
    bool lists = (allow && !allow->empty()) || (deny && !deny->empty());
    if (lists && mode && *mode != NetMode::Filtered) {
      const toml::node* n = t.get(allow && !allow->empty() ? "allow" : "deny");
      fail(*n, "[network] domain lists need mode = \"filtered\" (mode is \"" +
                   std::string(*mode == NetMode::Off ? "off" : "on") + "\")",
           "drop the lists, or set mode = \"filtered\"");
      return;
    }
    if (mode) {
      b_.network(*mode);
    } else if (lists) {
      b_.network(NetMode::Filtered);  // a list alone means filtering
    }
    if (allow) {
      for (const auto& [d, pos, node] : *allow) b_.allow_domain(d, pos);
    }
    if (deny) {
      for (const auto& [d, pos, node] : *deny) b_.deny_domain(d, pos);
    }
  }

  void env(const toml::table& t) {
    if (auto pass = strings(t, "env", "pass")) {
      for (const auto& [name, pos, node] : *pass) {
        if (!valid_env_name(name)) {
          fail(*node, "[env] pass: invalid variable name \"" + name + "\"", kEnvNameHint);
          return;
        }
        b_.pass_env(name);
      }
    }
    if (const toml::node* n = t.get("set")) {
      const toml::table* set = n->as_table();
      if (set == nullptr) {
        fail(*n, "[env] set must be a table of NAME = \"value\" (got " + type_name(*n) + ")");
        return;
      }
      for (auto&& [k, v] : *set) {
        std::string name(k.str());
        if (!valid_env_name(name)) {
          fail_at(k.source(), "[env] set: invalid variable name \"" + name + "\"", kEnvNameHint);
          return;
        }
        if (!v.is_string()) {
          fail(v, "[env] set: " + name + " must be a string (got " + type_name(v) + ")");
          return;
        }
        b_.set_env(name, v.as_string()->get());
      }
    }
  }

  // A size: "2G" or a plain number of bytes.
  std::optional<std::uint64_t> size(const toml::table& t, const char* key, const char* table = "limits") {
    const toml::node* n = t.get(key);
    if (n == nullptr || r_.failed()) return std::nullopt;
    const std::string what = this->what(table, key);
    if (const auto* i = n->as_integer()) {
      if (i->get() <= 0) {
        fail(*n, what + " must be positive (got " + std::to_string(i->get()) + ")");
        return std::nullopt;
      }
      return static_cast<std::uint64_t>(i->get());
    }
    if (const auto* s = n->as_string()) {
      auto v = parse_size(s->get());
      if (!v) {
        fail(*n, what + ": " + v.error().message, v.error().hint);
        return std::nullopt;
      }
      return *v;
    }
    fail(*n, what + " must be a size like \"512M\" or \"2G\" (got " + type_name(*n) + ")");
    return std::nullopt;
  }

  std::optional<std::uint64_t> count(const toml::table& t, const char* key, const char* table = "limits") {
    auto v = r_.integer(t, key, what(table, key), 1);
    if (!v) return std::nullopt;
    return static_cast<std::uint64_t>(*v);
  }

  std::optional<bool> flag(const toml::table& t, const char* table, const char* key) {
    return r_.boolean(t, key, what(table, key));
  }

  void limits(const toml::table& t) {
    Limits& l = b_.mutable_limits();
    if (auto v = size(t, "memory")) l.memory_bytes = v;
    if (auto v = count(t, "pids")) l.pids = v;
    if (const toml::node* n = t.get("cpu"); n != nullptr && !r_.failed()) {
      std::optional<double> cpu;
      if (const auto* f = n->as_floating_point()) cpu = f->get();
      if (const auto* i = n->as_integer()) cpu = static_cast<double>(i->get());
      if (!cpu || !(*cpu > 0) || *cpu > 4096) {
        std::string got = type_name(*n);
        if (cpu) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%g", *cpu);
          got = buf;
        }
        fail(*n, "[limits] cpu must be a positive number of cores, like 1.5 (got " + got + ")");
        return;
      }
      l.cpu = cpu;
    }
    if (const toml::node* n = t.get("timeout"); n != nullptr && !r_.failed()) {
      if (const auto* i = n->as_integer()) {
        if (i->get() <= 0) {
          fail(*n, "[limits] timeout must be positive (got " + std::to_string(i->get()) + ")");
          return;
        }
        l.timeout = std::chrono::seconds(i->get());
      } else if (const auto* s = n->as_string()) {
        auto d = parse_duration(s->get());
        if (!d) {
          fail(*n, "[limits] timeout: " + d.error().message, d.error().hint);
          return;
        }
        l.timeout = *d;
      } else {
        fail(*n, "[limits] timeout must be a duration like \"30m\" (got " + type_name(*n) + ")");
        return;
      }
    }
    if (auto v = size(t, "tmp_size")) l.tmp_size_bytes = v;
    if (auto v = size(t, "shm_size")) l.shm_size_bytes = v;
    if (auto v = size(t, "home_size")) l.home_size_bytes = v;
    if (auto v = size(t, "max_file_size")) l.max_file_size_bytes = v;
    if (auto v = count(t, "max_open_files")) l.max_open_files = v;
    if (auto v = flag(t, "limits", "core_dumps")) l.core_dumps = *v;
    if (auto v = flag(t, "limits", "best_effort")) l.best_effort = *v;
  }

  void sandbox(const toml::table& t) {
    if (auto v = flag(t, "sandbox", "require_namespaces")) b_.require_namespaces(*v);
    if (auto v = flag(t, "sandbox", "refuse_discarded_writes")) b_.refuse_discarded_writes(*v);
  }

  // [command]: arguments put after the agent's name on its command line (PolicyBuilder::CommandSetup).
  void command(const toml::table& t) {
    const toml::node* name = t.get("name");
    const auto* name_s = name ? name->as_string() : nullptr;
    if (name_s == nullptr || name_s->get().empty() || name_s->get().find('/') != std::string::npos) {
      if (name == nullptr) {
        fail_at(t.source(), "[command] needs name = \"COMMAND\" (the command it applies to)");
      } else {
        fail(*name, "[command] name must be a command name without '/' (got " +
                        (name_s ? "\"" + name_s->get() + "\"" : type_name(*name)) + ")");
      }
      return;
    }
    PolicyBuilder::CommandSetup setup;
    setup.name = name_s->get();
    setup.origin = {Origin::Kind::Profile, "profile " + src_.name};
    if (auto args = strings(t, "command", "args")) {
      for (auto& a : *args) setup.args.push_back(std::move(a.value));
    }
    if (auto conflicts = strings(t, "command", "conflicts")) {
      for (auto& [c, pos, node] : *conflicts) {
        if (c.empty() || c[0] != '-' || std::count(c.begin(), c.end(), ' ') > 1) {
          fail_at(t.get("conflicts")->source(),
                  "[command] conflicts takes \"--FLAG\" or \"--FLAG VALUE\" (got \"" + c + "\")");
          return;
        }
        setup.conflicts.push_back(std::move(c));
      }
    }
    if (auto m = r_.string(t, "conflict_message", "[command] conflict_message")) setup.conflict_message = *m;
    if (r_.failed()) return;
    b_.command_setup(std::move(setup));
  }

  // [undo]: snapshots for `paddock run` (docs/undo.md). A profile that extends another adds to
  // its excludes and overrides its switches.
  void undo(const toml::table& t) {
    UndoSettings& u = b_.mutable_undo();
    if (auto v = flag(t, "undo", "enabled")) u.enabled = *v;
    if (auto v = flag(t, "undo", "default_excludes")) u.default_excludes = *v;
    if (auto v = count(t, "max_checkpoints", "undo")) u.max_checkpoints = *v;
    if (auto v = size(t, "max_bytes", "undo")) u.max_bytes = *v;
    if (auto v = size(t, "store_quota", "undo")) u.store_quota = *v;
    if (auto items = strings(t, "undo", "excludes")) {
      for (auto& [value, where, node] : *items) {
        if (value.empty() || value[0] == '/' || value == "." || value == ".." || value.find("..") != std::string::npos) {
          fail_at(t.get("excludes")->source(), "[undo] excludes: \"" + value +
                  "\" must be a name or a path relative to the project (no \"..\", not absolute)");
          return;
        }
        u.excludes.push_back(value);
      }
    }
  }

  const ProfileSource& src_;
  PolicyBuilder& b_;
  const HostContext& ctx_;
  std::vector<std::string>& chain_;
  TomlReader r_;
};

}  // namespace

Result<void> apply_profile(const ProfileSource& src, PolicyBuilder& builder, const HostContext& ctx) {
  std::vector<std::string> chain{src.file};
  if (!src.file.empty() && src.file[0] == '/') builder.profile_file(src.file, "--profile " + src.name);
  ProfileReader reader(src, builder, ctx, chain);
  auto r = reader.run();
  if (!r) builder.fail(r.error());
  return r;
}

}  // namespace paddock
