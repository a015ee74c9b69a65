#include "undo/snapshot_manager.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <functional>
#include <map>
#include <set>

#include "policy/path_util.h"

namespace paddock::undo {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The session's next snapshot, numbered, timed and labelled, with what reading it cost (STATS);
// entries and elapsed time are the caller's.
SnapshotInfo next_snapshot(const SessionInfo& s, const std::string& label, const ScanStats& stats) {
  SnapshotInfo si;
  si.n = static_cast<int>(s.snapshots.size());
  si.time_ns = now_ns();
  si.time = utc_iso(si.time_ns);
  si.label = label;
  si.files_hashed = stats.files_hashed;
  si.bytes_read = stats.bytes_read;
  si.objects_new = stats.objects_new;
  si.bytes_new = stats.bytes_new;
  return si;
}

bool same_content(const ManifestEntry& a, const ManifestEntry& b) {
  if (a.st.type != b.st.type) return false;
  if (a.st.type == EntryType::File) return a.hash == b.hash;
  if (a.st.type == EntryType::Symlink) return a.target == b.target;
  return true;
}

bool same_entry(const ManifestEntry* a, const ManifestEntry* b) {
  if ((a == nullptr) != (b == nullptr)) return false;
  if (a == nullptr) return true;
  return same_content(*a, *b) && (a->st.type == EntryType::Symlink || a->st.mode == b->st.mode);
}

// Relative forms of the requested absolute paths that lie in ROOT ("" when a path is the root or
// above it: the whole root).
std::vector<std::string> filters_for(const std::string& root, const std::vector<std::string>& paths, bool& any) {
  std::vector<std::string> out;
  any = false;
  for (const auto& p : paths) {
    if (path::is_at_or_under(root, p)) {
      out.push_back("");
      any = true;
    } else if (path::is_strictly_under(p, root)) {
      out.push_back(p.substr(root == "/" ? 1 : root.size() + 1));
      any = true;
    }
  }
  return out;
}

}  // namespace

std::vector<Exclude> default_excludes() {
  return {{Exclude::Kind::Name, "node_modules", "default (build output / cache)"},
          {Exclude::Kind::Name, "target", "default (build output / cache)"},
          {Exclude::Kind::Name, ".venv", "default (build output / cache)"}};
}

std::string_view to_string(Change::Kind k) {
  switch (k) {
    case Change::Kind::Added: return "added";
    case Change::Kind::Modified: return "modified";
    case Change::Kind::Deleted: return "deleted";
    case Change::Kind::Mode: return "mode";
    case Change::Kind::Symlink: return "symlink";
    case Change::Kind::Type: return "type";
  }
  return "modified";
}

namespace {

// The change at PATH from EA to EB (at least one of them there, and not the same entry).
Change make_change(const std::string& root, const std::string& path, const ManifestEntry* ea, const ManifestEntry* eb) {
  Change c;
  c.root = root;
  c.path = path;
  if (ea == nullptr) {
    c.kind = Change::Kind::Added;
  } else if (eb == nullptr) {
    c.kind = Change::Kind::Deleted;
  } else if (ea->st.type != eb->st.type) {
    c.kind = Change::Kind::Type;
  } else if (!same_content(*ea, *eb)) {
    c.kind = eb->st.type == EntryType::Symlink ? Change::Kind::Symlink : Change::Kind::Modified;
  } else {
    c.kind = Change::Kind::Mode;
  }
  const ManifestEntry* e = eb ? eb : ea;
  c.type = e->st.type;
  if (ea) {
    c.old_mode = ea->st.mode;
    c.old_hash = ea->hash;
    c.old_target = ea->target;
  }
  if (eb) {
    c.new_mode = eb->st.mode;
    c.new_hash = eb->hash;
    c.new_target = eb->target;
  }
  return c;
}

}  // namespace

std::vector<Change> diff_manifests(const Manifest& a, const Manifest& b) {
  std::vector<Change> out;
  for (const auto& rb : b.roots) {
    const RootManifest* ra = a.find_root(rb.root);
    std::vector<std::pair<std::string, std::pair<const ManifestEntry*, const ManifestEntry*>>> all;
    if (ra != nullptr) {
      for (const auto& e : ra->entries) all.push_back({e.path, {&e, rb.find(e.path)}});
    }
    for (const auto& e : rb.entries) {
      if (ra == nullptr || ra->find(e.path) == nullptr) all.push_back({e.path, {nullptr, &e}});
    }
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return path_less(x.first, y.first); });
    for (const auto& [p, ab] : all) {
      const auto* ea = ab.first;
      const auto* eb = ab.second;
      if (same_entry(ea, eb)) continue;
      out.push_back(make_change(rb.root, p, ea, eb));
    }
  }
  return out;
}

SnapshotManager::SnapshotManager(Store& store)
    : SnapshotManager(
          store,
          [](const std::string& root) -> Result<std::shared_ptr<TreeFs>> {
            auto t = open_real_tree(root);
            if (!t) return std::move(t).take_error();
            return std::shared_ptr<TreeFs>(std::move(*t));
          },
          real_write_check()) {}

SnapshotManager::SnapshotManager(Store& store, TreeOpener opener, WriteCheck check)
    : store_(store), opener_(std::move(opener)), check_(std::move(check)) {}

std::vector<Exclude> SnapshotManager::excludes_for(const SessionInfo& s, const std::string& root) const {
  std::vector<Exclude> out;
  for (const auto& e : s.excludes) {
    if (e.kind == Exclude::Kind::Path && !e.pattern.empty() && e.pattern[0] == '/') {
      if (!path::is_strictly_under(e.pattern, root)) continue;
      Exclude rel = e;
      rel.pattern = e.pattern.substr(root == "/" ? 1 : root.size() + 1);
      out.push_back(std::move(rel));
    } else {
      out.push_back(e);
    }
  }
  return out;
}

Result<SessionInfo> SnapshotManager::begin(const Scope& scope, const std::vector<std::string>& command,
                                           const std::string& cwd) {
  if (auto l = store_.lock(); !l) return std::move(l).take_error();
  SessionInfo s;
  s.id = new_session_id();
  while (store_.load_session(s.id)) s.id = new_session_id();
  s.created_ns = now_ns();
  s.created = utc_iso(s.created_ns);
  s.command = command;
  s.cwd = cwd;
  s.roots = scope.roots;
  s.excludes = scope.excludes;
  s.not_captured = scope.not_captured;
  s.home = scope.home;
  if (auto w = store_.save_session(s); !w) return std::move(w).take_error();
  return s;
}

Result<Manifest> SnapshotManager::scan(const SessionInfo& s, const Manifest* prev, bool store_objects,
                                       ScanStats& stats, const ScanProgress& progress, std::uint64_t max_bytes_new) {
  return scan(s, [prev] { return prev; }, store_objects, stats, progress, max_bytes_new);
}

Result<Manifest> SnapshotManager::scan(const SessionInfo& s, const std::function<const Manifest*()>& prev_later,
                                       bool store_objects, ScanStats& stats, const ScanProgress& progress,
                                       std::uint64_t max_bytes_new) {
  Manifest m;
  for (const auto& root : s.roots) {
    auto fs = opener_(root);
    if (!fs) return std::move(fs).take_error();
    auto p = [&]() -> const RootManifest* {
      const Manifest* prev = prev_later();
      return prev ? prev->find_root(root) : nullptr;
    };
    auto r = scan_root(**fs, root, excludes_for(s, root), p, store_objects ? &store_ : nullptr, stats, progress,
                       max_bytes_new);
    if (!r) return std::move(r).take_error();
    m.roots.push_back(std::move(*r));
  }
  return m;
}

const Manifest* SnapshotManager::cached(const std::string& id, int n) const {
  return last_ && last_->id == id && last_->n == n ? &last_->m : nullptr;
}

void SnapshotManager::remember(const std::string& id, int n, Manifest m) {
  last_ = Cached{id, n, std::move(m)};
}

Result<SnapshotInfo> SnapshotManager::snapshot(SessionInfo& s, const std::string& label, const ScanProgress& progress,
                                               std::uint64_t max_bytes_new, bool* over_budget) {
  if (over_budget != nullptr) *over_budget = false;
  if (auto l = store_.lock(); !l) return std::move(l).take_error();
  const auto t0 = std::chrono::steady_clock::now();
  const Manifest* prev = nullptr;
  std::optional<Manifest> loaded;
  std::optional<Seed> seed;
  if (!s.snapshots.empty()) {
    prev = cached(s.id, s.snapshots.back().n);
    if (prev == nullptr) {
      auto p = store_.load_manifest(s.id, s.snapshots.back().n);
      if (p) loaded = std::move(*p);  // no index: everything is read again, nothing is lost
      prev = loaded ? &*loaded : nullptr;
    }
  }
  // A first snapshot's index is an earlier session's last snapshot of the same roots (seed.h),
  // found and read on another thread while the first root's listings are read ahead (scan.h).
  std::future<std::optional<Seed>> seeding;
  if (s.snapshots.empty()) {
    try {
      seeding = std::async(std::launch::async, [this, &s] { return find_seed(s); });
    } catch (const std::system_error&) {
      seed = find_seed(s);  // no thread: found first
      if (seed) prev = &seed->manifest;
    }
  }
  auto index = [&]() -> const Manifest* {
    if (seeding.valid()) {
      seed = seeding.get();
      if (seed) prev = &seed->manifest;
    }
    return prev;
  };
  ScanStats stats;
  auto m = scan(s, index, true, stats, progress, max_bytes_new);
  index();  // found, even when the scan stopped before asking
  auto fail = [&](Error e) -> Result<SnapshotInfo> {
    store_.discard_pending();
    s.incomplete = e.describe();
    (void)store_.save_session(s);
    return e;
  };
  if (!m && stats.bytes_new > max_bytes_new) {
    // Over the budget: not taken, and nothing is missing (the last snapshot is still the last).
    store_.discard_pending();
    if (over_budget != nullptr) *over_budget = true;
    return std::move(m).take_error();
  }
  if (!m) return fail(std::move(m).take_error());
  if (auto c = store_.commit_objects(); !c) return fail(std::move(c).take_error());
  SnapshotInfo si = next_snapshot(s, label, stats);
  si.entries = stats.entries;
  si.elapsed_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  if (seed) {
    // Stored against the seed unless that makes the chain of sessions too long (then in full).
    auto chain = store_.base_chain(seed->session);
    if (chain && *chain < kMaxBaseChain) {
      Delta d = make_delta(seed->n, seed->manifest, *m);
      d.base_session = seed->session;
      if (auto w = store_.save_delta(s.id, 0, d); !w) return fail(std::move(w).take_error());
      s.base_session = seed->session;
      s.base_snapshot = seed->n;
    } else if (auto w = store_.save_manifest(s.id, 0, *m); !w) {
      return fail(std::move(w).take_error());
    }
  } else if (auto w = save_snapshot(s, si.n, *m, prev); !w) {
    return fail(std::move(w).take_error());
  }
  s.snapshots.push_back(si);
  s.incomplete.clear();
  if (auto w = store_.save_session(s); !w) {
    s.snapshots.pop_back();
    if (si.n == 0) s.base_session.clear();
    return std::move(w).take_error();
  }
  remember(s.id, si.n, std::move(*m));
  return si;
}

std::optional<Seed> SnapshotManager::find_seed(const SessionInfo& s) {
  seed_current_ = false;
  // The session with the same roots that ended last, else the newest earlier one (session_ids:
  // oldest first, which reads every session) with the same roots and a snapshot...
  auto usable = [&](const Result<SessionInfo>& other) {
    return other && other->id != s.id && other->roots == s.roots && !other->snapshots.empty();
  };
  std::optional<SessionInfo> best;
  if (const std::string last = store_.load_last(s.roots); !last.empty()) {
    if (auto other = store_.load_session(last); usable(other)) best = std::move(*other);
  }
  if (!best) {
    auto ids = store_.session_ids();
    if (!ids) return std::nullopt;
    int looked = 0;
    for (auto it = ids->rbegin(); it != ids->rend() && !best && looked < kSeedSearch; ++it) {
      if (*it == s.id) continue;
      ++looked;
      if (auto other = store_.load_session(*it); usable(other)) best = std::move(*other);
    }
  }
  if (!best) return std::nullopt;
  // ...its last snapshot, read from the store starting at the seed file when the chain of deltas
  // back from it passes there (seed.h).
  const int n = best->snapshots.back().n;
  std::optional<Seed> cached = store_.load_seed(s.roots);
  int hops = -1;
  auto m = store_.load_manifest_seeded(best->id, n, cached, hops);
  if (!m) return std::nullopt;
  // The seed file stays while it lies few sessions back; else this session's last snapshot
  // replaces it (save_seed).
  seed_current_ = hops >= 0 && hops < kSeedHops;
  return Seed{best->id, n, std::move(*m)};
}

Result<void> SnapshotManager::save_seed(const SessionInfo& s) {
  if (s.snapshots.empty()) return {};
  if (auto w = store_.save_last(s.roots, s.id); !w) return w;
  if (seed_current_) return {};
  const Manifest* m = cached(s.id, s.snapshots.back().n);
  if (m == nullptr) return {};
  return store_.save_seed({s.id, s.snapshots.back().n, *m});
}

namespace {
struct Op {
  enum Kind { Remove, MakeDir, WriteFile, MakeLink, Chmod } kind;
  std::string path;
  const ManifestEntry* e = nullptr;  // the target's entry (the current one for `opens`)
  mode_t mode = 0;                   // the mode written (the entry's, set-id bits never: restore_gate.h)
  bool trusted = true;               // the entry is snapshot 0's (restore_gate.h)
};
struct RootPlan {
  std::string root;
  std::vector<Op> opens, removes, creates, final_modes;
};

}  // namespace

struct RestorePlan {
  RestoreOutcome out;
  std::vector<RootPlan> roots;
};
using Plan = RestorePlan;

namespace {

const gate::Verdict& fifo_verdict() {
  static const gate::Verdict v{gate::Class::Special,
                               "a restore never makes a FIFO (a host tool that opens it hangs): mkfifo it by hand"};
  return v;
}

// What turns CURRENT into TARGET below PATHS (absolute; empty: everything). LAST, when given, is
// the session's last snapshot: paths the plan changes that differ from it are conflicts. TRUST
// says which of the target's entries are snapshot 0's and which of the others the gate names
// (restore_gate.h): those are held back, with everything under them.
Result<Plan> make_plan(const Manifest& current, const Manifest& target, const std::vector<std::string>& paths,
                       const Manifest* last, const Trust& trust) {
  Plan plan;
  RestoreOutcome& out = plan.out;
  Manifest cur_only, tgt_only;  // for the displayed diff, limited to the paths
  for (const auto& tr : target.roots) {
    const RootManifest* cr = current.find_root(tr.root);
    if (cr == nullptr) return make_error("the current scan has no root " + tr.root);
    bool any = paths.empty();
    std::vector<std::string> filters = paths.empty() ? std::vector<std::string>{""} : filters_for(tr.root, paths, any);
    if (!any) continue;
    auto under = [&](const std::string& p) {
      return std::any_of(filters.begin(), filters.end(), [&](const std::string& f) { return rel_at_or_under(p, f); });
    };
    auto above = [&](const std::string& p) {
      return std::any_of(filters.begin(), filters.end(),
                         [&](const std::string& f) { return p != f && rel_at_or_under(f, p); });
    };
    // Never touched: what either side excluded (by name or by path).
    auto left_alone = [&](const std::string& p) {
      if (p.empty()) return false;
      const std::string name = p.substr(p.rfind('/') + 1);
      return excluded(tr.excludes, p, name) || excluded(cr->excludes, p, name);
    };
    auto rt_it = trust.find(tr.root);
    const RootTrust* rt = rt_it == trust.end() ? nullptr : &rt_it->second;
    auto trusted = [&](const std::string& p) { return rt == nullptr || rt->untrusted.count(p) == 0; };
    // 1. What is held back: each entry the restore would create or change that the gate names (or
    // a FIFO), and everything under it. Target entries come in path order, so a held directory
    // comes before what it holds.
    std::vector<Held> held;
    auto held_at = [&](const std::string& p) -> Held* {
      for (auto& h : held)
        if (rel_at_or_under(p, h.path)) return &h;
      return nullptr;
    };
    // Whether the plan below creates or changes the entry at T's path (now C).
    auto writes = [&](const ManifestEntry& t, const ManifestEntry* c) {
      if (t.st.type == EntryType::Other || (t.st.type != EntryType::Dir && !under(t.path))) return false;
      if (c == nullptr || c->st.type != t.st.type) return true;
      switch (t.st.type) {
        case EntryType::Dir: return c->st.mode != t.st.mode;
        case EntryType::File: return c->hash != t.hash || c->st.mode != restorable_mode(t.st.type, t.st.mode);
        case EntryType::Symlink: return c->target != t.target;
        case EntryType::Fifo: return c->st.mode != t.st.mode;
        case EntryType::Other: break;
      }
      return false;
    };
    for (const auto& t : tr.entries) {
      if (!(under(t.path) || above(t.path)) || left_alone(t.path)) continue;
      if (Held* h = held_at(t.path)) {
        ++h->below;
        continue;
      }
      if (!writes(t, cr->find(t.path))) continue;
      const gate::Verdict* v = nullptr;
      if (rt != nullptr) {
        auto f = rt->flagged.find(t.path);
        if (f != rt->flagged.end()) v = &f->second;
      }
      if (v == nullptr && t.st.type == EntryType::Fifo) v = &fifo_verdict();
      if (v != nullptr) held.push_back({tr.root, t.path, t, *v, 0});
    }
    auto is_held = [&](const std::string& p) { return held_at(p) != nullptr; };
    for (const auto& c : cr->entries)  // what is there now under a held path stays as it is
      if (is_held(c.path) && (under(c.path) || above(c.path)) && !left_alone(c.path) && tr.find(c.path) == nullptr)
        ++held_at(c.path)->below;

    RootPlan rp;
    rp.root = tr.root;
    std::set<std::string> removed;
    // Deepest first: a directory's contents go before it.
    for (auto it = cr->entries.rbegin(); it != cr->entries.rend(); ++it) {
      const ManifestEntry& c = *it;
      if (c.path.empty() || left_alone(c.path) || is_held(c.path)) continue;
      const ManifestEntry* t = tr.find(c.path);
      const bool type_differs = t != nullptr && t->st.type != c.st.type;
      if ((under(c.path) && (t == nullptr || type_differs)) || (above(c.path) && type_differs)) {
        rp.removes.push_back({Op::Remove, c.path, nullptr, 0, true});
        removed.insert(c.path);
      }
    }
    for (const auto& t : tr.entries) {
      if (!(under(t.path) || above(t.path)) || left_alone(t.path) || is_held(t.path)) continue;
      const ManifestEntry* c = removed.count(t.path) ? nullptr : cr->find(t.path);
      const bool ok = trusted(t.path);
      const mode_t mode = restorable_mode(t.st.type, t.st.mode);
      switch (t.st.type) {
        case EntryType::Dir:
          if (c == nullptr) rp.creates.push_back({Op::MakeDir, t.path, &t, mode, ok});
          if (c == nullptr || c->st.mode != t.st.mode) rp.final_modes.push_back({Op::Chmod, t.path, &t, mode, ok});
          // An existing directory whose mode forbids writing into it: opened up until the end.
          if (c != nullptr && (c->st.mode & 0700) != 0700) rp.opens.push_back({Op::Chmod, t.path, c, c->st.mode, true});
          break;
        case EntryType::File:
          if (!under(t.path)) break;
          if (c == nullptr || c->hash != t.hash) rp.creates.push_back({Op::WriteFile, t.path, &t, mode, ok});
          else if (c->st.mode != mode) rp.creates.push_back({Op::Chmod, t.path, &t, mode, ok});
          if (mode != t.st.mode && (c == nullptr || c->hash != t.hash || c->st.mode != t.st.mode))
            out.warnings.push_back(tr.root + "/" + t.path + ": restored without its set-id bits (a restore never "
                                   "writes them): chmod it by hand if you trust it");
          break;
        case EntryType::Symlink:
          if (!under(t.path)) break;
          if (c == nullptr || c->target != t.target) rp.creates.push_back({Op::MakeLink, t.path, &t, 0, ok});
          break;
        case EntryType::Fifo:  // never made (held above); an existing one gets its mode
          if (!under(t.path)) break;
          if (c != nullptr && c->st.mode != t.st.mode) rp.creates.push_back({Op::Chmod, t.path, &t, mode, ok});
          break;
        case EntryType::Other:
          if (c == nullptr && under(t.path)) {
            out.warnings.push_back(tr.root + "/" + t.path + ": a socket or device is not recreated");
          }
          break;
      }
    }
    RootManifest cm, tm;
    cm.root = tm.root = tr.root;
    for (const auto& c : cr->entries) {
      if ((under(c.path) || above(c.path)) && !left_alone(c.path) && !is_held(c.path)) cm.entries.push_back(c);
    }
    for (const auto& t : tr.entries) {
      if ((under(t.path) || above(t.path)) && !left_alone(t.path) && !is_held(t.path)) tm.entries.push_back(t);
    }
    cur_only.roots.push_back(std::move(cm));
    tgt_only.roots.push_back(std::move(tm));
    if (last != nullptr) {
      const RootManifest* lr = last->find_root(tr.root);
      std::set<std::string> touched;
      for (const auto* ops : {&rp.removes, &rp.creates, &rp.final_modes}) {
        for (const auto& op : *ops) touched.insert(op.path);
      }
      for (const auto& p : touched) {
        const ManifestEntry* l = lr ? lr->find(p) : nullptr;
        const ManifestEntry* c = cr->find(p);
        if (!same_entry(l, c)) out.conflicts.push_back(p.empty() ? tr.root : tr.root + "/" + p);
      }
    }
    for (auto& h : held) out.held.push_back(std::move(h));
    plan.roots.push_back(std::move(rp));
  }
  out.changes = diff_manifests(cur_only, tgt_only);
  return plan;
}

// Every path PLAN writes, with whether what it writes is trusted (restore_gate.h).
WrittenPaths written_paths(const Plan& plan) {
  WrittenPaths w;
  for (const auto& rp : plan.roots) {
    auto abs = [&](const std::string& p) { return p.empty() ? rp.root : rp.root == "/" ? "/" + p : rp.root + "/" + p; };
    for (const auto* ops : {&rp.opens, &rp.removes})
      for (const auto& op : *ops) w.add(abs(op.path), true);  // a removal, a mode put back: nothing chosen
    for (const auto* ops : {&rp.creates, &rp.final_modes})
      for (const auto& op : *ops) w.add(abs(op.path), op.trusted);
  }
  return w;
}

}  // namespace

Result<void> SnapshotManager::execute(const RestorePlan& plan, std::vector<std::string>& warnings) {
  const bool root_user = ::geteuid() == 0;
  for (const auto& rp : plan.roots) {
    auto fs_r = opener_(rp.root);
    if (!fs_r) return std::move(fs_r).take_error();
    TreeFs& fs = **fs_r;
    auto where = [&](const std::string& p) { return p.empty() ? rp.root : rp.root + "/" + p; };
    if (!root_user) {
      for (const auto& op : rp.opens) {
        if (auto r = fs.set_mode(op.path, op.mode | 0700); !r) return r;
      }
    }
    for (const auto& op : rp.removes) {
      auto r = fs.remove(op.path);
      crash_point();
      if (r) continue;
      if (r.error().sys_errno == ENOENT) continue;
      if (r.error().sys_errno == ENOTEMPTY || r.error().sys_errno == EEXIST) {
        warnings.push_back(where(op.path) + ": kept: it holds excluded entries");
        continue;
      }
      return r;
    }
    for (const auto& op : rp.creates) {
      Result<void> r;
      switch (op.kind) {
        case Op::MakeDir: {
          FileStat meta = op.e->st;
          meta.mode = op.mode | 0700;  // its final mode comes last, after what goes inside
          r = fs.make_dir(op.path, meta);
          if (!r && r.error().sys_errno == EEXIST) {
            auto st = fs.stat(op.path);
            if (st && st->type == EntryType::Dir) r = Result<void>();
          }
          break;
        }
        case Op::WriteFile: {
          auto obj = store_.open_object(op.e->hash);
          if (!obj) return std::move(obj).take_error();
          FileStat meta = op.e->st;
          meta.mode = op.mode;
          r = fs.write_file(op.path, obj->get(), meta);
          break;
        }
        case Op::MakeLink: r = fs.make_symlink(op.path, op.e->target); break;
        case Op::Chmod: r = fs.set_mode(op.path, op.mode); break;
        case Op::Remove: break;
      }
      crash_point();
      if (!r) return r;
    }
    for (auto it = rp.final_modes.rbegin(); it != rp.final_modes.rend(); ++it) {
      if (auto r = fs.set_mode(it->path, it->mode); !r) return r;
    }
    if (!root_user) {
      // Directories opened up above and not in final_modes get their mode back.
      for (const auto& op : rp.opens) {
        bool fixed = std::any_of(rp.final_modes.begin(), rp.final_modes.end(),
                                 [&](const Op& f) { return f.path == op.path; });
        if (!fixed) {
          if (auto r = fs.set_mode(op.path, op.mode); !r) return r;
        }
      }
    }
    if (auto r = fs.sync(); !r) return r;
    crash_point();
  }
  return {};
}

Result<void> SnapshotManager::execute_checked(const SessionInfo& s, const RestorePlan& plan, RestoreOutcome& out) {
  CheckAfter after;
  if (check_) {
    std::vector<std::string> roots;
    for (const auto& rp : plan.roots) roots.push_back(rp.root);
    after = check_(restore_areas(roots, s.home));
  }
  auto r = execute(plan, out.warnings);
  // Whatever was written, also when a write failed half-way, is checked.
  if (after) {
    const WrittenPaths written = written_paths(plan);
    out.left_behind = after([&written](const std::string& p) { return written.trusted(p); });
  }
  return r;
}

// A restore to TARGET trusts what is as snapshot 0 has it (taken before the sandbox started); of
// the rest, the gate judges what it would write (restore_gate.h).
Result<Trust> SnapshotManager::trust_for(const SessionInfo& s, int target) {
  Trust trust;
  if (target == 0) return trust;
  auto diffs = changes_between(s, 0, target);
  if (!diffs) return std::move(diffs).take_error();
  for (const auto& d : *diffs) {
    RootTrust& rt = trust[d.b.meta.root];
    for (const auto& pd : d.diffs) {
      rt.untrusted.insert(pd.path);
      if (!pd.b) continue;
      if (auto v = judge_entry(d.b.meta.root, *pd.b, s.home)) rt.flagged.emplace(pd.path, std::move(*v));
    }
  }
  return trust;
}

Result<std::vector<std::string>> SnapshotManager::later_sessions(const SessionInfo& s) {
  std::vector<std::string> later;
  auto ids = store_.session_ids();  // oldest first (by creation time)
  if (!ids) return std::move(ids).take_error();
  for (const auto& id : *ids) {
    if (id == s.id) continue;
    auto t = store_.load_session(id);
    if (!t) return std::move(t).take_error();
    const bool shares = std::any_of(t->roots.begin(), t->roots.end(), [&](const std::string& r) {
      return std::any_of(s.roots.begin(), s.roots.end(),
                         [&](const std::string& q) { return path::is_at_or_under(r, q) || path::is_at_or_under(q, r); });
    });
    if (shares && t->created_ns > s.created_ns) later.push_back(t->id);
  }
  return later;
}

Result<std::vector<Manifest>> SnapshotManager::recorded_states(const SessionInfo& s) {
  std::vector<Manifest> out;
  const Manifest* own = cached(s.id, s.snapshots.back().n);
  if (own != nullptr) {
    out.push_back(*own);
  } else {
    auto m = store_.load_manifest(s.id, s.snapshots.back().n);
    if (!m) return std::move(m).take_error();
    out.push_back(std::move(*m));
  }
  // The sessions with the same roots whose last snapshots are the newest (a restore in an earlier
  // session records the paths it changed in that session): a few, each read in full.
  auto ids = store_.session_ids();
  if (!ids) return std::move(ids).take_error();
  std::vector<std::pair<std::int64_t, SessionInfo>> same;
  for (const auto& id : *ids) {
    if (id == s.id) continue;
    auto t = store_.load_session(id);
    if (!t) return std::move(t).take_error();
    if (t->roots != s.roots || t->snapshots.empty()) continue;
    same.emplace_back(t->snapshots.back().time_ns, std::move(*t));
  }
  std::sort(same.begin(), same.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (same.size() > kRecordedStates) same.resize(kRecordedStates);
  for (const auto& [time, t] : same) {
    auto m = store_.load_manifest(t.id, t.snapshots.back().n);
    if (!m) return std::move(m).take_error();
    out.push_back(std::move(*m));
  }
  return out;
}

std::vector<std::string> SnapshotManager::unrecorded(const std::vector<Region>& regs, const std::vector<Change>& changes,
                                                     const std::vector<Manifest>& recorded) {
  std::vector<std::string> out;
  for (const auto& c : changes) {
    auto reg = std::find_if(regs.begin(), regs.end(), [&](const Region& r) { return r.current.root == c.root; });
    if (reg == regs.end()) continue;
    const ManifestEntry* cur = find_sorted(reg->current, c.path);
    const bool held = std::any_of(recorded.begin(), recorded.end(), [&](const Manifest& m) {
      const RootManifest* r = m.find_root(c.root);
      return same_entry(cur, r != nullptr ? find_sorted(*r, c.path) : nullptr);
    });
    if (!held) out.push_back(c.path.empty() ? c.root : c.root + "/" + c.path);
  }
  return out;
}

Result<Manifest> SnapshotManager::tree_now(const SessionInfo& s) {
  std::optional<Manifest> loaded;
  const Manifest* prev = cached(s.id, s.snapshots.back().n);
  if (prev == nullptr) {
    auto p = store_.load_manifest(s.id, s.snapshots.back().n);
    if (p) loaded = std::move(*p);  // no index: everything is read, nothing is lost
    prev = loaded ? &*loaded : nullptr;
  }
  ScanStats stats;
  return scan(s, prev, false, stats, {});
}

Result<std::vector<Held>> SnapshotManager::held_back(const SessionInfo& s, int target) {
  std::vector<Held> out;
  if (target == 0) return out;
  auto diffs = changes_between(s, 0, target);
  if (!diffs) return std::move(diffs).take_error();
  for (const auto& d : *diffs) {
    const std::size_t first = out.size();
    for (const auto& pd : d.diffs) {  // path order: a held directory before what it holds
      if (!pd.b) continue;
      auto inside = std::find_if(out.begin() + first, out.end(), [&](const Held& h) { return rel_at_or_under(pd.path, h.path); });
      if (inside != out.end()) {
        ++inside->below;
        continue;
      }
      auto v = judge_entry(d.b.meta.root, *pd.b, s.home);
      if (v) out.push_back({d.b.meta.root, pd.path, *pd.b, std::move(*v), 0});
    }
  }
  return out;
}

namespace {

// The entries whose content, type or mode differ between A and B (both in path_less order).
std::vector<PathDiff> diff_root_entries(const RootManifest& a, const RootManifest& b) {
  std::vector<PathDiff> out;
  std::size_t i = 0, j = 0;
  while (i < a.entries.size() || j < b.entries.size()) {
    const ManifestEntry* ea = i < a.entries.size() ? &a.entries[i] : nullptr;
    const ManifestEntry* eb = j < b.entries.size() ? &b.entries[j] : nullptr;
    if (ea && eb && ea->path == eb->path) {
      if (!same_entry(ea, eb)) out.push_back({ea->path, *ea, *eb});
      ++i, ++j;
    } else if (ea && (!eb || path_less(ea->path, eb->path))) {
      out.push_back({ea->path, *ea, std::nullopt});
      ++i;
    } else {
      out.push_back({eb->path, std::nullopt, *eb});
      ++j;
    }
  }
  return out;
}

RootManifest meta_only(const RootManifest& r) {
  RootManifest m;
  m.root = r.root;
  m.started_ns = r.started_ns;
  m.excludes = r.excludes;
  m.notes = r.notes;
  return m;
}

bool absent_errno(int e) { return e == ENOENT || e == ENOTDIR || e == ELOOP; }

// Each root of B against A's, in full (A_NAME names A in errors).
Result<std::vector<RootDiff>> diff_full(const Manifest& a, const Manifest& b, const std::string& a_name) {
  std::vector<RootDiff> out;
  for (const auto& rb : b.roots) {
    const RootManifest* ra = a.find_root(rb.root);
    if (ra == nullptr) return make_error("snapshot " + a_name + " has no root " + rb.root);
    out.push_back({{meta_only(*ra), ra->entries.size(), {}}, {meta_only(rb), rb.entries.size(), {}}, diff_root_entries(*ra, rb)});
  }
  return out;
}

}  // namespace

Result<std::vector<Change>> SnapshotManager::changes(const SessionInfo& s, int from, int to) {
  auto diffs = changes_between(s, from, to);
  if (!diffs) return std::move(diffs).take_error();
  std::vector<Change> out;
  for (const auto& d : *diffs) {
    for (const auto& pd : d.diffs) {
      out.push_back(make_change(d.b.meta.root, pd.path, pd.a ? &*pd.a : nullptr, pd.b ? &*pd.b : nullptr));
    }
  }
  return out;
}

Result<std::vector<RootDiff>> SnapshotManager::changes_between(const SessionInfo& s, int a, int b) {
  const int lo = std::min(a, b), hi = std::max(a, b);
  std::vector<Delta> chain;
  for (int n = lo + 1; n <= hi; ++n) {
    auto d = store_.load_delta(s.id, n);
    if (!d) return std::move(d).take_error();
    if (!*d) break;  // stored only in full (a version 1 store): compared in full below
    chain.push_back(std::move(**d));
  }
  std::vector<RootDiff> out;
  if (static_cast<int>(chain.size()) == hi - lo) {
    // The deltas between them, composed: a path's entry at LO is the "before" of the first delta
    // naming it, at HI the "after" of the last.
    auto ma = store_.load_meta(s.id, a);
    if (!ma) return std::move(ma).take_error();
    auto mb = store_.load_meta(s.id, b);
    if (!mb) return std::move(mb).take_error();
    if (ma->size() != mb->size()) return make_error("snapshots " + std::to_string(a) + " and " + std::to_string(b) + " have other roots");
    for (std::size_t k = 0; k < mb->size(); ++k) {
      std::map<std::string, std::pair<std::optional<ManifestEntry>, std::optional<ManifestEntry>>,
               bool (*)(const std::string&, const std::string&)>
          ends(path_less);
      for (const auto& d : chain) {
        if (k >= d.roots.size() || d.roots[k].meta.root != (*mb)[k].meta.root) {
          return make_error("a delta of session " + s.id + " has other roots than its snapshots");
        }
        for (const auto& c : d.roots[k].changes) {
          auto [it, fresh] = ends.try_emplace(c.path, c.before, c.after);
          if (!fresh) it->second.second = c.after;
        }
      }
      RootDiff rd{std::move((*ma)[k]), std::move((*mb)[k]), {}};
      for (auto& [p, ends_lo_hi] : ends) {
        auto& [at_lo, at_hi] = ends_lo_hi;
        const ManifestEntry* ea = a == lo ? (at_lo ? &*at_lo : nullptr) : (at_hi ? &*at_hi : nullptr);
        const ManifestEntry* eb = a == lo ? (at_hi ? &*at_hi : nullptr) : (at_lo ? &*at_lo : nullptr);
        if (same_entry(ea, eb)) continue;
        rd.diffs.push_back({p, ea ? std::optional<ManifestEntry>(*ea) : std::nullopt,
                            eb ? std::optional<ManifestEntry>(*eb) : std::nullopt});
      }
      out.push_back(std::move(rd));
    }
    return out;
  }
  auto full = [&](int n, std::optional<Manifest>& keep) -> Result<const Manifest*> {
    if (const Manifest* c = cached(s.id, n)) return c;
    auto m = store_.load_manifest(s.id, n);
    if (!m) return std::move(m).take_error();
    keep = std::move(*m);
    return &*keep;
  };
  std::optional<Manifest> ka, kb;
  auto ma = full(a, ka);
  if (!ma) return std::move(ma).take_error();
  auto mb = full(b, kb);
  if (!mb) return std::move(mb).take_error();
  return diff_full(**ma, **mb, std::to_string(a));
}

Result<std::vector<RootDiff>> SnapshotManager::diff_with(const Manifest& a, const SessionInfo& s, int b) {
  auto mb = store_.load_manifest(s.id, b);
  if (!mb) return std::move(mb).take_error();
  return diff_full(a, *mb, "the scope as last recorded");
}

// The entry at PATH as the tree holds it now, or nullopt when nothing is there (or a symlink or
// file is where a directory on the way should be). A file keeps KNOWN's object when its metadata
// match and its ctime is older than TRUSTED_BEFORE (the racily-clean rule of scan.h); otherwise
// it is read (and stored, with STORE).
Result<std::optional<ManifestEntry>> SnapshotManager::current_entry(TreeFs& fs, const std::string& root,
                                                                   const std::string& path, const ManifestEntry* known,
                                                                   std::int64_t trusted_before, bool store_objects,
                                                                   ScanStats& stats) {
  using Out = std::optional<ManifestEntry>;
  auto st = fs.stat(path);
  if (!st) {
    if (absent_errno(st.error().sys_errno)) return Out();
    return std::move(st).take_error();
  }
  ManifestEntry e{path, *st, {}, {}};
  ++stats.entries;
  if (st->type == EntryType::File) {
    if (known && known->st.type == EntryType::File && same_meta(known->st, *st) && known->st.ctime_ns < trusted_before &&
        !known->hash.empty()) {
      e.hash = known->hash;
      return Out(std::move(e));
    }
    auto fd = fs.open_file(path);
    if (!fd) {
      if (absent_errno(fd.error().sys_errno)) return Out();
      return std::move(fd).take_error();
    }
    if (auto r = read_file_content(fs, root, path, fd->get(), *st, store_objects ? &store_ : nullptr, stats, e); !r)
      return std::move(r).take_error();
  } else if (st->type == EntryType::Symlink) {
    auto t = fs.read_link(path);
    if (!t) {
      if (absent_errno(t.error().sys_errno)) return Out();
      return std::move(t).take_error();
    }
    e.target = *t;
  }
  return Out(std::move(e));
}

// The part of the tree a restore from L to T deals with, and nothing more: the paths DIFFS names
// (below PATHS) and the directories above them, each stat'ed now. A directory the restore
// removes is listed, so that what was added in it since L is seen (a conflict) and removed with
// it under --force.
Result<std::vector<SnapshotManager::Region>> SnapshotManager::regions(const SessionInfo& s,
                                                                      const std::vector<RootDiff>& diffs,
                                                                      const std::vector<std::string>& paths, int target,
                                                                      bool store_objects, ScanStats& stats) {
  std::vector<Region> out;
  std::optional<Manifest> target_full;  // only when a directory above a change is not one now
  for (const auto& d : diffs) {
    const std::string& root = d.b.meta.root;
    bool any = paths.empty();
    std::vector<std::string> filters = paths.empty() ? std::vector<std::string>{""} : filters_for(root, paths, any);
    if (!any) continue;
    auto wanted = [&](const std::string& p) {
      return std::any_of(filters.begin(), filters.end(),
                         [&](const std::string& f) { return rel_at_or_under(p, f) || rel_at_or_under(f, p); });
    };
    auto under = [&](const std::string& p) {
      return std::any_of(filters.begin(), filters.end(), [&](const std::string& f) { return rel_at_or_under(p, f); });
    };
    auto fs_r = opener_(root);
    if (!fs_r) return std::move(fs_r).take_error();
    TreeFs& fs = **fs_r;
    const std::int64_t trusted_before = d.a.meta.started_ns - fs.timestamp_granularity_ns();
    Region reg;
    reg.last = d.a.meta;
    reg.target = d.b.meta;
    reg.current = meta_only(d.a.meta);
    std::map<std::string, const PathDiff*, bool (*)(const std::string&, const std::string&)> changed(path_less);
    for (const auto& pd : d.diffs) {
      if (wanted(pd.path)) changed.emplace(pd.path, &pd);
    }
    std::set<std::string, bool (*)(const std::string&, const std::string&)> all(path_less);
    for (const auto& [p, pd] : changed) {
      for (std::string q = p;; q = parent_rel(q)) {
        if (!all.insert(q).second || q.empty()) break;
      }
    }
    std::vector<std::string> unknown;  // in a removed directory, not in L
    std::function<Result<void>(const std::string&)> unknown_below = [&](const std::string& dir) -> Result<void> {
      auto children = fs.list(dir);
      if (!children) return absent_errno(children.error().sys_errno) ? Result<void>() : Result<void>(std::move(children).take_error());
      for (const auto& c : *children) {
        const std::string p = join_rel(dir, c.name);
        if (all.count(p) || excluded(d.a.meta.excludes, p, c.name)) continue;
        auto e = current_entry(fs, root, p, nullptr, trusted_before, store_objects, stats);
        if (!e) return std::move(e).take_error();
        if (!*e) continue;
        unknown.push_back(p);
        const bool is_dir = (*e)->st.type == EntryType::Dir;
        reg.current.entries.push_back(std::move(**e));
        if (is_dir) {
          if (auto r = unknown_below(p); !r) return r;
        }
      }
      return {};
    };
    std::vector<std::string> extra;  // directories above a change recreated from the target
    for (const auto& p : all) {
      auto it = changed.find(p);
      const PathDiff* pd = it == changed.end() ? nullptr : it->second;
      const ManifestEntry* known = pd && pd->a ? &*pd->a : nullptr;
      auto cur = current_entry(fs, root, p, known, trusted_before, store_objects, stats);
      if (!cur) return std::move(cur).take_error();
      if (pd != nullptr) {
        if (pd->a) reg.last.entries.push_back(*pd->a);
        if (pd->b) reg.target.entries.push_back(*pd->b);
      } else if (*cur && (*cur)->st.type == EntryType::Dir) {
        // Above a change and the same in L and T: as it is now (nothing to do but to enter it).
        reg.last.entries.push_back(**cur);
        reg.target.entries.push_back(**cur);
      } else {
        // A directory above a change is gone or replaced since L: the target says what it was.
        if (!target_full) {
          auto t = store_.load_manifest(s.id, target);
          if (!t) return std::move(t).take_error();
          target_full = std::move(*t);
        }
        const RootManifest* tr = target_full->find_root(root);
        const ManifestEntry* te = tr ? tr->find(p) : nullptr;
        if (te != nullptr) {
          reg.last.entries.push_back(*te);
          reg.target.entries.push_back(*te);
        }
        reg.need_full_base = true;
        extra.push_back(p);
      }
      if (*cur) {
        // Removed whole (below the paths asked for): all of it that L knew is in CHANGED.
        const bool removed_dir = (*cur)->st.type == EntryType::Dir && pd && (!pd->b || pd->b->st.type != EntryType::Dir) &&
                                 under(p);
        reg.current.entries.push_back(std::move(**cur));
        if (removed_dir) {
          if (auto r = unknown_below(p); !r) return std::move(r).take_error();
        }
      }
    }
    std::sort(reg.current.entries.begin(), reg.current.entries.end(),
              [](const ManifestEntry& x, const ManifestEntry& y) { return path_less(x.path, y.path); });
    std::set<std::string, bool (*)(const std::string&, const std::string&)> rec(path_less);
    for (const auto& [p, pd] : changed) rec.insert(p);
    rec.insert(unknown.begin(), unknown.end());
    rec.insert(extra.begin(), extra.end());
    for (const auto& p : rec) {
      auto it = changed.find(p);
      reg.recorded.push_back(p);
      reg.base.push_back(it != changed.end() ? it->second->a : std::nullopt);
    }
    out.push_back(std::move(reg));
  }
  return out;
}

// What is at PATH now (as last looked at), or nullopt.
std::optional<ManifestEntry> SnapshotManager::Region::now(const std::string& path) const {
  const ManifestEntry* e = find_sorted(current, path);
  return e ? std::optional<ManifestEntry>(*e) : std::nullopt;
}

// After the changes: each recorded path as it now is (read again when its metadata moved); what
// it was becomes the base of the next derived snapshot.
Result<void> SnapshotManager::refresh(std::vector<Region>& regs, ScanStats& stats) {
  for (auto& reg : regs) {
    auto fs_r = opener_(reg.current.root);
    if (!fs_r) return std::move(fs_r).take_error();
    RootManifest now = meta_only(reg.current);
    const std::int64_t trusted_before = reg.last.started_ns - (*fs_r)->timestamp_granularity_ns();
    for (std::size_t i = 0; i < reg.recorded.size(); ++i) {
      reg.base[i] = reg.now(reg.recorded[i]);
      const ManifestEntry* before = reg.base[i] ? &*reg.base[i] : nullptr;
      auto e = current_entry(**fs_r, reg.current.root, reg.recorded[i], before, trusted_before, true, stats);
      if (!e) return std::move(e).take_error();
      if (*e) now.entries.push_back(std::move(**e));
    }
    reg.current = std::move(now);
    reg.need_full_base = false;  // the base is the snapshot derived just before, whole in BASE
  }
  return {};
}

Result<RestoreOutcome> SnapshotManager::restore(const RestoreRequest& req) {
  if (auto l = store_.lock(); !l) return std::move(l).take_error();
  if (auto j = store_.load_journal(); !j) {
    return std::move(j).take_error();
  } else if (*j) {
    return make_error("a restore of session " + (*j)->session + " was interrupted", store_.dir() + "/journal",
                      "paddock undo restore --resume finishes it");
  }
  auto s = store_.load_session(req.session);
  if (!s) return std::move(s).take_error();
  if (s->snapshots.empty()) return make_error("session " + req.session + " has no snapshot");
  if (req.target < 0 || req.target >= static_cast<int>(s->snapshots.size())) {
    return make_error("session " + req.session + " has no snapshot " + std::to_string(req.target) + " (it has 0 to " +
                          std::to_string(static_cast<int>(s->snapshots.size()) - 1) + ")",
                      {}, "paddock undo list shows them");
  }
  for (const auto& p : req.paths) {
    const bool inside = std::any_of(s->roots.begin(), s->roots.end(),
                                    [&](const std::string& r) { return path::is_at_or_under(p, r); });
    if (!inside) {
      std::string all;
      for (const auto& r : s->roots) all += (all.empty() ? "" : ", ") + r;
      return make_error(p + " is not in the session (it captured " + all + ")");
    }
  }
  if (!s->incomplete.empty()) {
    // The session's last snapshot failed (a full disk, ...): what changed after the one before it
    // is in no snapshot, and a restore from the store alone would leave it. The tree is walked
    // and snapshotted first (dry run included: the tree is untouched, the session gains the
    // snapshot it lacked); when that fails too, nothing is changed.
    auto now = snapshot(*s, "before restore (the last snapshot had failed)");
    if (!now)
      return make_error("the session's last snapshot had failed, and snapshotting the tree as it is before restoring "
                            "failed too: " + now.error().describe(),
                        {}, "make room for the store (" + store_.dir() + "), or paddock undo prune");
  }
  std::vector<std::string> later;
  std::optional<Manifest> now;     // ScopeState: the tree as it is, walked (nothing stored)
  std::vector<Manifest> recorded;  // ScopeState: what paddock last recorded of the scope
  if (req.meaning == RestoreMeaning::ScopeState) {
    // What differs between the tree as it is and the target is what every session since changed
    // (and every edit since outside paddock: a conflict unless a snapshot holds it, below).
    auto l = later_sessions(*s);
    if (!l) return std::move(l).take_error();
    later = std::move(*l);
    auto r = recorded_states(*s);
    if (!r) return std::move(r).take_error();
    recorded = std::move(*r);
    auto m = tree_now(*s);
    if (!m) return std::move(m).take_error();
    now = std::move(*m);
  }
  const int last_n = s->snapshots.back().n;
  // What differs between the last snapshot and the target, from the store: no walk of the tree.
  auto diffs = now ? diff_with(*now, *s, req.target) : changes_between(*s, last_n, req.target);
  if (!diffs) return std::move(diffs).take_error();
  // Those paths as they are now: only hashed for a dry run; stored for a real restore, whose
  // first step records them (so that the restore can be undone, and a crash finished).
  ScanStats stats;
  auto regs = regions(*s, *diffs, req.paths, req.target, !req.dry_run && !now, stats);
  if (!regs) {
    store_.discard_pending();
    return std::move(regs).take_error();
  }
  Manifest current, target, last;
  for (const auto& r : *regs) {
    current.roots.push_back(r.current);
    target.roots.push_back(r.target);
    last.roots.push_back(r.last);
  }
  auto trust = trust_for(*s, req.target);
  if (!trust) {
    store_.discard_pending();
    return std::move(trust).take_error();
  }
  auto plan = make_plan(current, target, req.paths, &last, *trust);
  if (!plan) {
    store_.discard_pending();
    return std::move(plan).take_error();
  }
  RestoreOutcome out = plan->out;
  out.later_sessions = later;
  if (now) out.conflicts = unrecorded(*regs, out.changes, recorded);
  if (req.dry_run || (!out.conflicts.empty() && !req.force)) {
    store_.discard_pending();
    return out;
  }
  if (now) {
    // The tree walked again, stored, as the session's last snapshot (so that the restore can be
    // undone); then the restore from it to the target: the same differences, through the same
    // steps (the journal, the gate before and after).
    if (auto w = snapshot(*s, "the tree before restoring it to :" + std::to_string(req.target)); !w) {
      return make_error("walking the tree before restoring it failed: " + w.error().describe(), {},
                        "nothing was changed; paddock undo revert takes back one session's changes without a walk");
    }
    RestoreRequest from_now = req;
    from_now.meaning = RestoreMeaning::SessionChanges;
    auto done = restore(from_now);
    if (done) done->later_sessions = std::move(later);
    return done;
  }
  // 1. The tree as it is, durably, as a snapshot of the session: the last one with the paths
  // looked at as they are now.
  if (auto c = store_.commit_objects(); !c) return std::move(c).take_error();
  SnapshotInfo before = next_snapshot(*s, "before restore to :" + std::to_string(req.target), stats);
  std::vector<RootDelta> base_meta;
  for (const auto& d : *diffs) base_meta.push_back(d.a);
  if (auto w = record_derived(*s, before, *regs, base_meta, nullptr); !w) return std::move(w).take_error();
  // 2. The journal: from here on, a crash is finished by resume().
  Journal j;
  j.session = s->id;
  j.target = req.target;
  j.before = before.n;
  j.paths = req.paths;
  if (auto w = store_.save_journal(j); !w) return std::move(w).take_error();
  // 3. The changes (between the gate's check before and after), then the paths as they now are,
  // then the journal goes.
  if (auto r = execute_checked(*s, *plan, out); !r) return std::move(r).take_error();
  if (auto r = finish(*s, "restored to :" + std::to_string(req.target), *regs, base_meta, nullptr); !r) {
    return std::move(r).take_error();
  }
  if (auto r = store_.remove_journal(); !r) return std::move(r).take_error();
  out.applied = true;
  out.before_snapshot = before.n;
  return out;
}

// The paths of REGS as they are after the changes, recorded as the session's next snapshot.
Result<void> SnapshotManager::finish(SessionInfo& s, const std::string& label, std::vector<Region>& regs,
                                     std::vector<RootDelta>& base_meta, const Manifest* base_full) {
  ScanStats stats;
  if (auto r = refresh(regs, stats); !r) {
    store_.discard_pending();
    return r;
  }
  if (auto c = store_.commit_objects(); !c) return c;
  return record_derived(s, next_snapshot(s, label, stats), regs, base_meta, base_full);
}

// Snapshot INFO.n without a walk: the session's last snapshot (whose roots BASE_META describes)
// with the regions' recorded paths as they now are. Stored as a delta of those paths; BASE_META
// then describes the new snapshot.
Result<void> SnapshotManager::record_derived(SessionInfo& s, SnapshotInfo info, const std::vector<Region>& regs,
                                             std::vector<RootDelta>& base_meta, const Manifest* base_full) {
  const int base_n = s.snapshots.back().n;
  if (base_full == nullptr) base_full = cached(s.id, base_n);
  std::optional<Manifest> loaded;
  const bool need_full = std::any_of(regs.begin(), regs.end(), [](const Region& r) { return r.need_full_base; });
  if (base_full == nullptr && need_full) {
    auto m = store_.load_manifest(s.id, base_n);
    if (!m) return std::move(m).take_error();
    loaded = std::move(*m);
    base_full = &*loaded;
  }
  Delta d;
  d.base = base_n;
  for (const auto& bm : base_meta) {
    RootDelta rd{bm.meta, bm.entries, {}};
    const RootManifest* full_root = base_full ? base_full->find_root(bm.meta.root) : nullptr;
    auto reg = std::find_if(regs.begin(), regs.end(), [&](const Region& g) { return g.current.root == bm.meta.root; });
    if (reg != regs.end()) {
      for (std::size_t i = 0; i < reg->recorded.size(); ++i) {
        const std::string& p = reg->recorded[i];
        std::optional<ManifestEntry> before;
        if (full_root != nullptr) {
          if (const ManifestEntry* e = find_sorted(*full_root, p)) before = *e;
        } else {
          before = reg->base[i];
        }
        std::optional<ManifestEntry> after = reg->now(p);
        if (!before && !after) continue;
        if (before && after && same_full_entry(*before, *after)) continue;
        rd.entries = rd.entries + (after ? 1 : 0) - (before ? 1 : 0);
        rd.changes.push_back({p, std::move(before), std::move(after)});
      }
    }
    info.entries += rd.entries > 0 ? rd.entries - 1 : 0;  // as a scan counts: the root itself is not
    d.roots.push_back(std::move(rd));
  }
  if (auto w = store_.save_delta(s.id, info.n, d); !w) return w;
  // The full manifest, when one is due, and the one kept in memory.
  std::optional<Manifest> full;
  if (last_ && last_->id == s.id && last_->n == base_n) {
    full = std::move(last_->m);
    last_.reset();
  } else if (info.n % kFullEvery == 0) {
    auto m = base_full != nullptr ? Result<Manifest>(*base_full) : store_.load_manifest(s.id, base_n);
    if (!m) return std::move(m).take_error();
    full = std::move(*m);
  }
  if (full) {
    if (auto a = apply_delta(*full, d, store_.dir()); !a) return a;
    if (info.n % kFullEvery == 0) {
      if (auto w = store_.save_manifest(s.id, info.n, *full); !w) return w;
    }
  }
  s.snapshots.push_back(info);
  if (auto w = store_.save_session(s); !w) {
    s.snapshots.pop_back();
    return w;
  }
  if (full) remember(s.id, info.n, std::move(*full));
  base_meta.clear();
  for (auto& r : d.roots) base_meta.push_back({std::move(r.meta), r.entries, {}});
  return {};
}

Result<void> SnapshotManager::save_snapshot(const SessionInfo& s, int n, const Manifest& m, const Manifest* prev) {
  if (prev != nullptr && n > 0) {
    if (auto w = store_.save_delta(s.id, n, make_delta(n - 1, *prev, m)); !w) return w;
  }
  if (prev == nullptr || n % kFullEvery == 0) return store_.save_manifest(s.id, n, m);
  return {};
}

// A restore killed inside a write leaves the file it was making beside its name
// (".paddock-undo-" and 16 hex digits, tree_fs.h): removed from the directories it was changing.
Result<void> SnapshotManager::remove_leftovers(const std::vector<Region>& regs) {
  for (const auto& reg : regs) {
    auto fs = opener_(reg.current.root);
    if (!fs) return std::move(fs).take_error();
    std::set<std::string> dirs;
    for (const auto& p : reg.recorded) dirs.insert(parent_rel(p));
    for (const auto& dir : dirs) {
      auto children = (*fs)->list(dir);
      if (!children) continue;  // gone or not a directory: nothing was left there
      for (const auto& c : *children) {
        const bool ours = c.name.size() == 30 && c.name.compare(0, 14, ".paddock-undo-") == 0 &&
                          c.name.find_first_not_of("0123456789abcdef", 14) == std::string::npos;
        if (!ours || c.st.type == EntryType::Dir) continue;
        const std::string p = join_rel(dir, c.name);
        if (find_sorted(reg.target, p) != nullptr || find_sorted(reg.last, p) != nullptr) continue;
        if (auto r = (*fs)->remove(p); !r && r.error().sys_errno != ENOENT) return r;
      }
    }
  }
  return {};
}

Result<std::optional<RestoreOutcome>> SnapshotManager::resume() {
  if (auto l = store_.lock(); !l) return std::move(l).take_error();
  auto j = store_.load_journal();
  if (!j) return std::move(j).take_error();
  if (!*j) return std::optional<RestoreOutcome>();
  const Journal& jr = **j;
  auto s = store_.load_session(jr.session);
  if (!s) return std::move(s).take_error();
  // What the restore had to change (from the snapshot before it to the target), as it is now.
  auto diffs = changes_between(*s, jr.before, jr.target);
  if (!diffs) return std::move(diffs).take_error();
  // The session's last snapshot (the one before the restore, or the one after if only the
  // journal's removal was missing), whole: the base of the snapshot recorded at the end.
  auto last = store_.load_manifest(s->id, s->snapshots.back().n);
  if (!last) return std::move(last).take_error();
  std::vector<RootDelta> base_meta;
  for (const auto& r : last->roots) base_meta.push_back({meta_only(r), r.entries.size(), {}});
  ScanStats stats;
  auto regs = regions(*s, *diffs, jr.paths, jr.target, false, stats);
  if (!regs) return std::move(regs).take_error();
  Manifest current, target;
  for (const auto& r : *regs) {
    current.roots.push_back(r.current);
    target.roots.push_back(r.target);
  }
  auto trust = trust_for(*s, jr.target);
  if (!trust) return std::move(trust).take_error();
  auto plan = make_plan(current, target, jr.paths, nullptr, *trust);
  if (!plan) return std::move(plan).take_error();
  RestoreOutcome out = plan->out;
  if (auto r = remove_leftovers(*regs); !r) return std::move(r).take_error();
  if (auto r = execute_checked(*s, *plan, out); !r) return std::move(r).take_error();
  if (auto r = finish(*s, "restored to :" + std::to_string(jr.target) + " (resumed)", *regs, base_meta, &*last); !r) {
    return std::move(r).take_error();
  }
  if (auto r = store_.remove_journal(); !r) return std::move(r).take_error();
  out.applied = true;
  out.before_snapshot = jr.before;
  return std::optional<RestoreOutcome>(std::move(out));
}

}  // namespace paddock::undo
