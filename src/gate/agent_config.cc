#include "gate/agent_config.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "policy/path_util.h"
#include "sys/anchored_dir.h"
#include "sys/syscalls.h"

namespace paddock::gate {
namespace {

// Ordered: a document put back keeps the agent's order of keys.
using json = nlohmann::ordered_json;

std::string dotted(const std::vector<std::string>& p) {
  std::string s;
  for (const std::string& c : p) s += (s.empty() ? "" : ".") + c;
  return s;
}

bool is_command(const json* v) { return v && v->is_string() && v->get_ref<const std::string&>().rfind('!', 0) == 0; }

// Equal as values: objects compare key by key whatever their order (an agent that rewrites a
// file may reorder what it did not change).
bool same(const json& a, const json& b) {
  if (a.is_object() != b.is_object()) return false;
  if (!a.is_object()) return a == b;
  if (a.size() != b.size()) return false;
  for (const auto& [n, v] : a.items()) {
    auto it = b.find(n);
    if (it == b.end() || !same(v, *it)) return false;
  }
  return true;
}

// Pattern P (each component a glob) matches the key path AT: exactly (ALL) or AT is a proper
// prefix of it.
bool matches(const std::vector<std::string>& p, const std::vector<std::string>& at, bool all) {
  if (all ? p.size() != at.size() : p.size() <= at.size()) return false;
  for (std::size_t i = 0; i < at.size(); ++i)
    if (fnmatch(p[i].c_str(), at[i].c_str(), 0) != 0) return false;
  return true;
}

const json* child(const json* v, const std::string& n) {
  if (v == nullptr || !v->is_object()) return nullptr;
  auto it = v->find(n);
  return it == v->end() ? nullptr : &*it;
}

// The value kept at key path AT, given OLD's and NOW's (either absent): NOW's where ALLOWED lets
// the agent write, OLD's everywhere else. nullopt: absent.
std::optional<json> kept(const json* old, const json* now, const std::vector<ConfigKey>& allowed,
                         std::vector<std::string>& at) {
  for (const ConfigKey& k : allowed) {
    if (!matches(k.path, at, true)) continue;
    if (k.unless_command && (is_command(old) || is_command(now))) break;  // put back below
    return now ? std::optional<json>(*now) : std::nullopt;
  }
  const bool inner = !at.empty() && std::any_of(allowed.begin(), allowed.end(),
                                                [&](const ConfigKey& k) { return matches(k.path, at, false); });
  if (at.empty() || (inner && now != nullptr && now->is_object())) {
    // Key by key, in the new document's order, then what only the old one has.
    json out = json::object();
    auto one = [&](const std::string& n) {
      at.push_back(n);
      if (auto v = kept(child(old, n), child(now, n), allowed, at)) out[n] = std::move(*v);
      at.pop_back();
    };
    if (now != nullptr && now->is_object())
      for (const auto& [n, v] : now->items()) one(n);
    if (old != nullptr && old->is_object())
      for (const auto& [n, v] : old->items())
        if (child(now, n) == nullptr) one(n);
    if (out.empty() && old == nullptr && now != nullptr && !now->empty()) return std::nullopt;
    return out;
  }
  // Removed whole, an object holding allowed keys (a project forgotten): nothing in it can run.
  if (inner && now == nullptr) return std::nullopt;
  // Not the agent's to change: the old value (NOW's when equal, to keep its layout).
  if (old != nullptr && now != nullptr && same(*old, *now)) return *now;
  return old ? std::optional<json>(*old) : std::nullopt;
}

// The key paths where KEPT and NOW differ, in NOW's order.
void differences(const json* kept, const json* now, std::vector<std::string>& at, std::vector<std::string>& out) {
  if (kept != nullptr && now != nullptr && kept->is_object() && now->is_object()) {
    auto one = [&](const std::string& n) {
      at.push_back(n);
      differences(child(kept, n), child(now, n), at, out);
      at.pop_back();
    };
    for (const auto& [n, v] : now->items()) one(n);
    for (const auto& [n, v] : kept->items())
      if (child(now, n) == nullptr) one(n);
    return;
  }
  if ((kept == nullptr) != (now == nullptr) || (kept != nullptr && !same(*kept, *now))) out.push_back(dotted(at));
}

// A TOML document as JSON, for the same comparison (dates and times as their TOML text).
json toml_to_json(const toml::node& n) {
  if (const toml::table* t = n.as_table()) {
    json o = json::object();
    for (const auto& [k, v] : *t) o[std::string(k.str())] = toml_to_json(v);
    return o;
  }
  if (const toml::array* a = n.as_array()) {
    json arr = json::array();
    for (const toml::node& v : *a) arr.push_back(toml_to_json(v));
    return arr;
  }
  if (auto s = n.value<std::string>(); s && n.is_string()) return *s;
  if (n.is_integer()) return *n.value<std::int64_t>();
  if (n.is_boolean()) return *n.value<bool>();
  std::ostringstream s;  // floats (NaN and infinities too), dates, times
  n.visit([&](const auto& x) { s << x; });
  return s.str();
}

enum class TreeState { Same, Changed, Unknown };

// Whether anything in the tree at NAME (in FD) changed against BASE. BUDGET bounds the entries
// visited; past it, or where a directory cannot be read, the answer is Unknown.
TreeState tree_changed(int fd, const char* name, const Baseline& base, std::size_t& budget, int depth = 0) {
  struct stat st;
  if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return TreeState::Same;  // gone: runs nothing
  if (base.changed(st)) return TreeState::Changed;
  if (!S_ISDIR(st.st_mode)) return TreeState::Same;
  if (depth > 64 || budget == 0) return TreeState::Unknown;
  int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (sub < 0) return TreeState::Unknown;
  DIR* d = fdopendir(sub);
  if (!d) {
    close(sub);
    return TreeState::Unknown;
  }
  TreeState state = TreeState::Same;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (budget == 0) {
      state = TreeState::Unknown;
      break;
    }
    TreeState t = tree_changed(dirfd(d), e->d_name, base, --budget, depth + 1);
    if (t == TreeState::Changed) {
      state = t;
      break;
    }
    if (t == TreeState::Unknown) state = t;
  }
  closedir(d);
  return state;
}

using Skip = std::function<bool(const std::string& name)>;

// Records every inode in the tree at NAME (in FD) in BASE, as it is before the run, so that
// afterwards it is compared exactly (a host change just before the run is not the run's). The
// entries directly in it that SKIP names are left out (a Data directory's data).
void record_tree(int fd, const char* name, Baseline& base, std::size_t& budget, int depth = 0, const Skip& skip = {}) {
  struct stat st;
  if (budget == 0 || fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  --budget;
  base.record(st);
  if (!S_ISDIR(st.st_mode) || depth > 64) return;
  int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (sub < 0) return;
  DIR* d = fdopendir(sub);
  if (!d) {
    close(sub);
    return;
  }
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0 && !(skip && skip(e->d_name)))
      record_tree(dirfd(d), e->d_name, base, budget, depth + 1);
  closedir(d);
}

// Moves ENTRY out of the directory DIR_FD (named DIR_NAME in PARENT) into DIR_NAME.paddock-quarantine
// beside it: not beside the entry, where the agent scans (pi loads extensions/*/index.ts, Claude
// Code skills/*/SKILL.md, whatever the name). Returns the path relative to PARENT, or "" with errno.
std::string quarantine_entry(int parent, const std::string& dir_name, int dir_fd, const std::string& entry) {
  int err = EEXIST;
  for (int i = 0; i < 100; ++i) {
    const std::string qname = dir_name + ".paddock-quarantine" + (i ? "." + std::to_string(i) : "");
    if (mkdirat(parent, qname.c_str(), 0700) != 0 && errno != EEXIST) return "";
    sys::UniqueFd q(openat(parent, qname.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!q) continue;  // not a directory (a symlink the run left?): the next name
    for (int j = 0; j < 100; ++j) {
      const std::string target = entry + (j ? "." + std::to_string(j) : "");
      if (sys::renameat2(dir_fd, entry.c_str(), q.get(), target.c_str(), RENAME_NOREPLACE) == 0)
        return qname + "/" + target;
      if (errno != EEXIST) return "";
    }
  }
  errno = err;
  return "";
}

std::string sibling(const std::string& path, const std::string& name) { return path::join(path::parent(path), name); }

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// A regular file of at most MAX bytes at NAME in FD, read without following a symlink.
std::optional<std::string> read_regular(int fd, const std::string& name, std::size_t max, struct stat& st) {
  int f = openat(fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f < 0) return std::nullopt;
  sys::UniqueFd file(f);
  if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > max) return std::nullopt;
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(f, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max) return std::nullopt;
  }
  return out;
}

// The regular files directly in the directory NAME (in DIR) that SKIP does not name, up to the
// saved sizes.
void save_small_files(const sys::UniqueFd& dir, const std::string& name,
                      std::map<std::string, AgentConfigWatch::Saved>& saved, const Skip& skip) {
  sys::UniqueFd d(openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) return;
  int dup_fd = fcntl(d.get(), F_DUPFD_CLOEXEC, 0);
  DIR* listing = dup_fd >= 0 ? fdopendir(dup_fd) : nullptr;
  if (!listing) {
    if (dup_fd >= 0) close(dup_fd);
    return;
  }
  std::size_t total = 0;
  while (dirent* e = readdir(listing)) {
    if ((e->d_type != DT_REG && e->d_type != DT_UNKNOWN) || skip(e->d_name)) continue;
    struct stat st;
    auto bytes = read_regular(d.get(), e->d_name, AgentConfigWatch::kSavedFileSize, st);
    if (!bytes || total + bytes->size() > AgentConfigWatch::kSavedTotal) continue;
    total += bytes->size();
    saved[e->d_name] = {std::move(*bytes), st.st_mode & 07777};
  }
  closedir(listing);
}

}  // namespace

JsonRestore keep_allowed_json(std::string_view old_text, std::string_view new_text,
                              const std::vector<ConfigKey>& allowed) {
  JsonRestore r;
  json old_doc = json::parse(old_text, nullptr, false);
  json new_doc = json::parse(new_text, nullptr, false);
  if (old_doc.is_discarded() || new_doc.is_discarded() || !old_doc.is_object() || !new_doc.is_object()) return r;
  r.parsed = true;
  std::vector<std::string> at;
  json merged = kept(&old_doc, &new_doc, allowed, at).value_or(json::object());
  differences(&merged, &new_doc, at, r.changed);
  if (!r.changed.empty()) r.merged = merged.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  return r;
}

TomlDiff toml_outside_allowed(std::string_view old_text, std::string_view new_text,
                              const std::vector<ConfigKey>& allowed) {
  TomlDiff d;
  json old_doc, new_doc;
  try {
    old_doc = toml_to_json(toml::parse(old_text));
    new_doc = toml_to_json(toml::parse(new_text));
  } catch (const toml::parse_error&) {
    return d;
  }
  d.parsed = true;
  std::vector<std::string> at;
  json merged = kept(&old_doc, &new_doc, allowed, at).value_or(json::object());
  differences(&merged, &new_doc, at, d.changed);
  return d;
}

AgentConfigWatch AgentConfigWatch::before(const Policy& policy) {
  return before(policy.home, policy.paths, known_agent_configs());
}

AgentConfigWatch AgentConfigWatch::before(const std::string& home, const std::vector<PathRule>& rules,
                                          const std::vector<KnownConfig>& known) {
  AgentConfigWatch w;
  w.base_.start();
  w.known_ = known;
  if (home.empty() || home == "/") return w;
  for (std::size_t i = 0; i < w.known_.size(); ++i) {
    // The deepest existing ancestor, with the symlinks the user made before the run resolved
    // (a ~/.claude linked into dotfiles is where the agent will read it); from there on, no
    // symlink is followed.
    std::string dir = path::parent(path::join(home, w.known_[i].rel));
    std::vector<std::string> pending{base_name(path::join(home, w.known_[i].rel))};
    struct stat st;
    while (lstat(dir.c_str(), &st) != 0 && dir != "/") {
      pending.insert(pending.begin(), base_name(dir));
      dir = path::parent(dir);
    }
    char* real = realpath(dir.c_str(), nullptr);
    if (!real) continue;
    std::string anchor_path = real;
    free(real);
    std::string full = anchor_path;
    for (const std::string& c : pending) full = path::join(full, c);
    const bool writable = std::any_of(rules.begin(), rules.end(), [&](const PathRule& r) {
      return grants(r.access, Access::Write) && r.symlink_target.empty() && path::is_at_or_under(full, r.path);
    });
    if (!writable) continue;
    auto fd = sys::open_dir_no_symlinks(anchor_path);
    if (!fd) continue;
    Watched x;
    x.known = i;
    x.path = full;
    x.anchor = std::make_shared<const sys::UniqueFd>(std::move(*fd));
    x.anchor_path = anchor_path;
    if (fstat(x.anchor->get(), &st) == 0) {
      x.anchor_dev = st.st_dev;
      x.anchor_ino = st.st_ino;
    }
    x.rest = std::move(pending);
    x.others = w.nested_in(i);
    if (x.rest.size() == 1 && fstatat(x.anchor->get(), x.rest[0].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      x.existed = true;
      x.dev = st.st_dev;
      x.ino = st.st_ino;
      x.mode = st.st_mode;
      w.base_.record(st);
      if (S_ISREG(st.st_mode)) {
        struct stat fst;
        if (auto bytes = read_regular(x.anchor->get(), x.rest[0], kMaxFileSize, fst); bytes && fst.st_ino == st.st_ino) {
          x.readable = true;
          x.bytes = std::move(*bytes);
        }
      } else if (S_ISDIR(st.st_mode) && (w.known_[i].format == ConfigFormat::Dir ||
                                         w.known_[i].format == ConfigFormat::Data)) {
        const Skip skip = [&](const std::string& n) { return w.passed_over(x, n); };
        save_small_files(*x.anchor, x.rest[0], x.saved, skip);
        std::size_t budget = kDirEntryBudget;
        record_tree(x.anchor->get(), x.rest[0].c_str(), w.base_, budget, 0, skip);
      } else if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(x.anchor->get(), x.rest[0].c_str(), target, sizeof target);
        if (n > 0 && static_cast<std::size_t>(n) < sizeof target) x.bytes.assign(target, static_cast<std::size_t>(n));
      }
    }
    w.watched_.push_back(std::move(x));
  }
  return w;
}

std::vector<std::string> AgentConfigWatch::nested_in(std::size_t i) const {
  std::vector<std::string> out;
  const std::string prefix = known_[i].rel + "/";
  for (const KnownConfig& k : known_)
    if (k.rel.rfind(prefix, 0) == 0) out.push_back(k.rel.substr(prefix.size(), k.rel.find('/', prefix.size()) - prefix.size()));
  return out;
}

bool AgentConfigWatch::passed_over(const Watched& w, const std::string& name) const {
  const KnownConfig& k = known_[w.known];
  if (k.format != ConfigFormat::Data) return false;
  if (std::find(w.others.begin(), w.others.end(), name) != w.others.end()) return true;
  return std::any_of(k.keys.begin(), k.keys.end(), [&](const ConfigKey& d) {
    return d.path.size() == 1 && fnmatch(d.path[0].c_str(), name.c_str(), 0) == 0;
  });
}

std::vector<LeftBehind> AgentConfigWatch::after(const std::function<bool(const std::string&)>& trusted) const {
  std::vector<LeftBehind> out;
  std::set<std::string> replaced;
  for (const Watched& w : watched_) {
    if (trusted && trusted(w.path)) continue;
    // The directory it was reached through must still be the one at that path: a run that can
    // write its parent could have renamed it away and put another (or a symlink) in its place,
    // which the descriptor held since before would not see.
    struct stat st;
    if (lstat(w.anchor_path.c_str(), &st) != 0 || st.st_dev != w.anchor_dev || st.st_ino != w.anchor_ino) {
      // Said once; and not again when the check of the directory itself (an agent's state
      // directory, checked first) has just moved what is there now aside.
      const bool said = std::any_of(out.begin(), out.end(), [&](const LeftBehind& l) { return l.path == w.anchor_path; });
      if (replaced.insert(w.anchor_path).second && !said) anchor_replaced(w, out);
      continue;
    }
    check(w, out);
  }
  return out;
}

bool AgentConfigWatch::covers(const std::string& path) const {
  return std::any_of(watched_.begin(), watched_.end(),
                     [&](const Watched& w) { return path::is_at_or_under(path, w.path); });
}

void AgentConfigWatch::anchor_replaced(const Watched& w, std::vector<LeftBehind>& out) const {
  const std::string why = "agents' configuration that runs on the host lies below it (" + w.path +
                          "); the directory that was here before the run was moved or replaced during it";
  auto parent = sys::open_dir_no_symlinks(path::parent(w.anchor_path));
  struct stat st;
  if (!parent || fstatat(parent->get(), base_name(w.anchor_path).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    out.push_back({w.anchor_path, why, "find the original (the run may have renamed it) before an agent runs outside paddock"});
    return;
  }
  std::string aside = rename_aside(parent->get(), base_name(w.anchor_path), "paddock-quarantine");
  out.push_back({w.anchor_path, why,
                 aside.empty() ? std::string("could not move what is there now aside (") + std::strerror(errno) + "): remove it"
                               : "what is there now moved aside to " + sibling(w.anchor_path, aside) +
                                     "; find the original (the run may have renamed it) and move it back"});
}

void AgentConfigWatch::check(const Watched& w, std::vector<LeftBehind>& out) const {
  // Down the directories that did not exist before the run. Made by the run as plain
  // directories, they are its own state and what is in them is checked as usual; anything else
  // there (a symlink the host would follow) is moved aside whole.
  int fd = w.anchor->get();
  std::string at = w.path;
  for (std::size_t j = 0; j < w.rest.size(); ++j) at = path::parent(at);  // the anchor
  std::vector<sys::UniqueFd> held;
  for (std::size_t i = 0; i + 1 < w.rest.size(); ++i) {
    at = path::join(at, w.rest[i]);
    struct stat st;
    if (fstatat(fd, w.rest[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // still absent
    sys::UniqueFd next(openat(fd, w.rest[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      std::string aside = rename_aside(fd, w.rest[i], "paddock-quarantine");
      out.push_back({at, known_[w.known].why + " (" + w.path + " was reached through it; it did not exist before the run)",
                     aside.empty() ? std::string("could not move it aside (") + std::strerror(errno) + "): remove it"
                                   : "moved aside to " + sibling(at, aside) + "; review it before you move it back"});
      return;
    }
    fd = next.get();
    held.push_back(std::move(next));
  }
  const ConfigFormat f = known_[w.known].format;
  if (f == ConfigFormat::Dir || f == ConfigFormat::Data) check_dir(w, fd, w.rest.back(), out);
  else check_file(w, fd, w.rest.back(), out);
}

void AgentConfigWatch::check_dir(const Watched& w, int parent, const std::string& name,
                                 std::vector<LeftBehind>& out) const {
  const KnownConfig& k = known_[w.known];
  struct stat st;
  if (fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
  const bool same = w.existed && st.st_dev == w.dev && st.st_ino == w.ino && S_ISDIR(st.st_mode);
  // An agent's state directory made by the run as a plain directory is its own (a first start
  // under `--allow ~`): its data stays, anything else in it is moved aside below.
  const bool new_state = k.format == ConfigFormat::Data && !w.existed && S_ISDIR(st.st_mode);
  if (!same && !new_state) {
    // Created by the run, or the directory replaced (a symlink, another directory): aside whole.
    std::string aside = rename_aside(parent, name, "paddock-quarantine");
    std::string action = aside.empty() ? std::string("could not move it aside (") + std::strerror(errno) + "): remove it"
                                       : "moved aside to " + sibling(w.path, aside) + "; review it before you move it back";
    if (w.existed) action += "; the directory that was here before the run was moved or replaced during it";
    out.push_back({w.path, k.why, action});
    return;
  }
  sys::UniqueFd d(openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!d) {
    out.push_back({w.path, k.why + " (not checked: " + std::strerror(errno) + ")",
                   "review it before the agent runs outside paddock"});
    return;
  }
  // Each entry changed or added during the run, with everything below it.
  std::vector<std::string> names;
  int dup_fd = fcntl(d.get(), F_DUPFD_CLOEXEC, 0);
  if (DIR* dir = dup_fd >= 0 ? fdopendir(dup_fd) : nullptr) {
    while (dirent* e = readdir(dir))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    closedir(dir);
  } else if (dup_fd >= 0) {
    close(dup_fd);
  }
  std::sort(names.begin(), names.end());
  std::size_t budget = kDirEntryBudget;
  for (const std::string& n : names) {
    if (passed_over(w, n)) continue;
    const std::string p = path::join(w.path, n);
    TreeState t = tree_changed(d.get(), n.c_str(), base_, budget);
    if (t == TreeState::Same) continue;
    if (t == TreeState::Unknown) {
      out.push_back({p, k.why + " (not fully checked: unreadable, or more than " + std::to_string(kDirEntryBudget) +
                            " entries)",
                     "review it before the agent runs outside paddock"});
      continue;
    }
    std::string aside = quarantine_entry(parent, name, d.get(), n);
    if (aside.empty()) {
      out.push_back({p, k.why, std::string("could not move it aside (") + std::strerror(errno) + "): remove it"});
      continue;
    }
    std::string action = "moved aside to " + sibling(w.path, aside) + "; review it before you move it back";
    if (auto was = w.saved.find(n); was != w.saved.end()) {
      // A file that was there before the run: the user's version back in its place.
      auto wr = sys::write_file_at(d.get(), n, was->second.bytes, was->second.mode);
      action = "the sandbox's version moved aside to " + sibling(w.path, aside) +
               (wr ? "; the previous file restored" : "; could not restore the previous file (" + wr.error().message + ")");
    }
    out.push_back({p, k.why, action});
  }
}

void AgentConfigWatch::check_file(const Watched& w, int parent, const std::string& name,
                                  std::vector<LeftBehind>& out) const {
  const KnownConfig& k = known_[w.known];
  struct stat st;
  if (fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // removed: nothing runs
  struct stat fst{};
  std::optional<std::string> now;
  if (S_ISREG(st.st_mode)) now = read_regular(parent, name, kMaxFileSize, fst);
  const bool same_inode = w.existed && st.st_dev == w.dev && st.st_ino == w.ino;
  if (w.existed && !w.readable) {
    // A symlink (or something paddock did not read) before the run: it must still be that.
    if (same_inode && !base_.changed(st)) return;
    if (S_ISLNK(w.mode)) {
      std::string aside = rename_aside(parent, name, "paddock-rejected");
      std::string action = aside.empty() ? std::string("could not move it aside (") + std::strerror(errno) + ")"
                                         : "the sandbox's version moved aside to " + sibling(w.path, aside);
      if (!aside.empty() && symlinkat(w.bytes.c_str(), parent, name.c_str()) == 0)
        action += "; the symlink to " + w.bytes + " restored";
      out.push_back({w.path, k.why, action});
    } else {
      out.push_back({w.path, k.why + " (it was not a regular file of at most 4 MiB before the run, so it could not be "
                                     "compared)",
                     "changed during the run: review it before the agent runs outside paddock"});
    }
    return;
  }
  if (now && w.existed && *now == w.bytes) return;

  // What changed, and what the file should hold instead (nullopt: nothing to put back; move the
  // sandbox's file aside only).
  std::vector<std::string> changed;
  std::optional<std::string> restore;
  bool merged = false;  // RESTORE is the sandbox's file with only the watched keys put back
  if (!now) {
    changed.push_back(S_ISLNK(st.st_mode) ? "became a symlink" : "is not a regular file of at most 4 MiB");
    if (w.existed) restore = w.bytes;
  } else if (k.format == ConfigFormat::Whole) {
    changed.push_back(w.existed ? "changed" : "created");
    if (w.existed) restore = w.bytes;
  } else if (k.format == ConfigFormat::Json) {
    JsonRestore r = keep_allowed_json(w.existed ? std::string_view(w.bytes) : std::string_view("{}"), *now, k.keys);
    if (!r.parsed) {
      changed.push_back("no longer a JSON object");
      if (w.existed) restore = w.bytes;
    } else if (r.changed.empty()) {
      return;  // only the agent's own state changed
    } else {
      changed = std::move(r.changed);
      restore = std::move(r.merged);
      merged = true;
    }
  } else {
    TomlDiff d = toml_outside_allowed(w.existed ? std::string_view(w.bytes) : std::string_view(""), *now, k.keys);
    if (!d.parsed) {
      changed.push_back("no longer valid TOML");
      if (w.existed) restore = w.bytes;
    } else if (d.changed.empty()) {
      return;
    } else {
      changed = std::move(d.changed);
      if (w.existed) restore = w.bytes;
    }
  }
  if (!w.existed) restore.reset();  // created by the run with such keys: aside whole

  std::string what = k.why + ": ";
  for (std::size_t i = 0; i < changed.size(); ++i) what += (i ? ", " : "") + changed[i];
  std::string aside = rename_aside(parent, name, "paddock-rejected");
  if (aside.empty()) {
    out.push_back({w.path, what, std::string("could not move it aside (") + std::strerror(errno) +
                                     "): fix it before the agent runs outside paddock"});
    return;
  }
  std::string action = "the sandbox's version moved aside to " + sibling(w.path, aside);
  if (restore) {
    const mode_t mode = (S_ISREG(w.mode) ? w.mode : st.st_mode) & 07777;
    if (auto wr = sys::write_file_at(parent, name, *restore, mode); !wr) {
      action += "; could not restore the previous file (" + wr.error().message + ")";
    } else {
      action += merged ? "; those keys put back as they were, the agent's other changes kept"
                       : "; the previous file restored";
    }
  }
  out.push_back({w.path, what, action});
}

}  // namespace paddock::gate
