// UndoStore (paddock/undo.h): the store's sessions, their changes, the restores and pruning, as
// `paddock undo` and the C API use them. Over Store and SnapshotManager; prints nothing.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <utility>

#include "paddock/state.h"
#include "paddock/undo.h"
#include "policy/path_util.h"
#include "sys/display.h"
#include "undo/project.h"
#include "undo/public_values.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock {

struct UndoStore::Impl {
  std::unique_ptr<undo::Store> store;
  // One manager for the store's life: what it read or wrote is its cache while it holds the
  // store's lock (snapshot_manager.h).
  std::unique_ptr<undo::SnapshotManager> mgr;

  undo::SnapshotManager& manager() {
    if (!mgr) mgr = std::make_unique<undo::SnapshotManager>(*store);
    return *mgr;
  }
};

namespace {

std::string canonical_or(const char* p, const std::string& fallback) {
  char real[PATH_MAX];
  return p != nullptr && ::realpath(p, real) != nullptr ? std::string(real) : fallback;
}

// A project in an error message: its directory was named by whoever made it, escaped.
std::string project_text(const UndoProject& p) {
  return sys::display(p.dir) + (p.repository ? " (a git repository)" : "");
}

}  // namespace

Result<UndoStore> UndoStore::open_default() {
  auto state = state_layout_of_process();
  if (!state) return std::move(state).take_error();
  return open(state->undo_dir, false);
}

Result<UndoStore> UndoStore::open(const std::string& dir, bool create) {
  auto store = undo::Store::open(dir, create);
  if (!store) return std::move(store).take_error();
  auto impl = std::make_shared<Impl>();
  impl->store = std::move(*store);
  return UndoStore(std::move(impl));
}

const std::string& UndoStore::dir() const { return impl_->store->dir(); }

Result<std::optional<UndoResumed>> UndoStore::interrupted() const {
  auto j = impl_->store->load_journal();
  if (!j) return std::move(j).take_error();
  if (!*j) return std::optional<UndoResumed>();
  UndoResumed r;
  r.session = (*j)->session;
  r.target = (*j)->target;
  return std::optional<UndoResumed>(std::move(r));
}

Result<std::optional<UndoResumed>> UndoStore::finish_interrupted() {
  auto j = impl_->store->load_journal();
  auto r = impl_->manager().resume();
  if (!r) return std::move(r).take_error();
  if (!*r) return std::optional<UndoResumed>();
  UndoResumed out;
  if (j && *j) {
    out.session = (*j)->session;
    out.target = (*j)->target;
  }
  out.outcome = undo::to_public(*impl_->store, std::move(**r));
  return std::optional<UndoResumed>(std::move(out));
}

Result<std::vector<std::string>> UndoStore::session_ids() const { return impl_->store->session_ids(); }

Result<UndoSessions> UndoStore::sessions(bool all, const std::string& cwd, const std::string& home) const {
  auto ids = impl_->store->session_ids();
  if (!ids) return std::move(ids).take_error();
  UndoSessions out;
  out.in_store = ids->size();
  std::optional<undo::Project> project;
  if (!all) {
    std::string dir = cwd.empty() ? std::string() : canonical_or(cwd.c_str(), cwd);
    if (dir.empty()) {
      char buf[PATH_MAX];
      if (::getcwd(buf, sizeof(buf)) == nullptr)
        return make_error("cannot tell the current project: the current directory is gone", {},
                          "cd into the project, or --all for every project's sessions");
      dir = buf;
    }
    const std::string h = home.empty() ? canonical_or(std::getenv("HOME"), "") : canonical_or(home.c_str(), home);
    project = undo::project_of(dir, h);
    out.project = UndoProject{project->dir, project->repository};
  }
  for (const auto& id : *ids) {
    auto s = impl_->store->load_session(id);
    if (!s) {
      out.unreadable.push_back(std::move(s).take_error());
      continue;
    }
    if (!project || undo::in_project(s->roots, *project)) out.sessions.push_back(undo::to_public(std::move(*s)));
  }
  return out;
}

Result<UndoTarget> UndoStore::target(const std::string& given, int default_n, bool all, const std::string& cwd,
                                     const std::string& home) const {
  UndoTarget out;
  out.session = given;
  out.n = default_n;
  if (auto colon = given.find(':'); colon != std::string::npos) {
    out.session = given.substr(0, colon);
    const std::string num = given.substr(colon + 1);
    char* end = nullptr;
    long v = std::strtol(num.c_str(), &end, 10);
    if (num.empty() || *end != 0 || v < 0 || v > INT_MAX) return make_error("not a snapshot number: \"" + num + "\"", given);
    out.n = static_cast<int>(v);
  }
  if (!out.session.empty()) return out;
  auto in = sessions(all, cwd, home);
  if (!in) return std::move(in).take_error();
  out.unreadable = std::move(in->unreadable);
  if (in->sessions.empty()) {
    if (in->in_store == 0)
      return make_error("the undo store has no session yet", dir(), "paddock run --undo -- COMMAND records one");
    return make_error("no undo session of " + project_text(*in->project) + " (the store holds " +
                          std::to_string(in->in_store) + " of other projects)",
                      {}, "cd into the project, name the session, or --all for the newest of every project's");
  }
  const UndoSession& s = in->sessions.back();
  out.session = s.id;
  out.newest = true;
  out.project = in->project;
  out.roots = s.roots;
  return out;
}

Result<UndoSession> UndoStore::session(const std::string& id) const {
  auto s = impl_->store->load_session(id);
  if (!s) return std::move(s).take_error();
  return undo::to_public(std::move(*s));
}

Result<std::vector<UndoChange>> UndoStore::changes(const UndoSession& s, int from, int to) {
  if (s.snapshots.size() < 2) return std::vector<UndoChange>{};
  // From the deltas between them: no full manifest parsed.
  auto ch = impl_->manager().changes(undo::info_of(s), from, to);
  if (!ch) return std::move(ch).take_error();
  return undo::to_public(*impl_->store, *ch);
}

Result<std::vector<UndoHeld>> UndoStore::held_back(const UndoSession& s, int target) {
  auto held = impl_->manager().held_back(undo::info_of(s), target);
  if (!held) return std::move(held).take_error();
  std::vector<UndoHeld> out;
  for (const undo::Held& h : *held) out.push_back(undo::to_public(*impl_->store, h));
  return out;
}

UndoUnreadable UndoStore::unreadable(const UndoSession& s, int n) const {
  return undo::unreadable_of(*impl_->store, undo::info_of(s), n);
}

Result<UndoRestoreOutcome> UndoStore::restore(const UndoRestoreRequest& req) {
  undo::RestoreRequest r;
  r.session = req.session;
  r.target = req.target;
  r.paths = req.paths;
  r.force = req.force;
  r.dry_run = req.dry_run;
  r.meaning = req.meaning == UndoRestoreMeaning::ScopeState ? undo::RestoreMeaning::ScopeState
                                                             : undo::RestoreMeaning::SessionChanges;
  auto o = impl_->manager().restore(r);
  if (!o) return std::move(o).take_error();
  return undo::to_public(*impl_->store, std::move(*o));
}

Result<UndoPruneReport> UndoStore::prune(const UndoPruneOptions& o) {
  undo::Store& store = *impl_->store;
  if (auto l = store.lock(); !l) return std::move(l).take_error();
  auto ids = store.session_ids();
  if (!ids) return std::move(ids).take_error();
  std::vector<std::string> keep = *ids;  // oldest first
  UndoPruneReport out;
  out.quota = o.quota;
  auto remove_oldest = [&]() -> Result<void> {
    if (auto r = store.remove_session(keep.front()); !r) return r;
    keep.erase(keep.begin());
    ++out.removed;
    return {};
  };
  if (o.older_than) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    while (!keep.empty()) {
      auto s = store.load_session(keep.front());
      if (!s) return std::move(s).take_error();
      const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - std::chrono::nanoseconds(s->created_ns));
      if (age < *o.older_than) break;
      if (auto r = remove_oldest(); !r) return std::move(r).take_error();
    }
  }
  if (o.keep >= 0) {
    while (keep.size() > static_cast<std::size_t>(o.keep)) {
      if (auto r = remove_oldest(); !r) return std::move(r).take_error();
    }
  }
  auto gc = store.collect_garbage();
  if (!gc) return std::move(gc).take_error();
  out.freed = gc->bytes_removed;
  for (;;) {
    auto size = store.object_bytes();
    if (!size) return std::move(size).take_error();
    if (*size <= o.quota || keep.empty()) break;
    if (auto r = remove_oldest(); !r) return std::move(r).take_error();
    auto more = store.collect_garbage();
    if (!more) return std::move(more).take_error();
    out.freed += more->bytes_removed;
  }
  if (auto size = store.object_bytes()) out.size = *size;
  out.left = keep.size();
  return out;
}

std::string undo_path_argument(const std::string& given) {
  char cwd[PATH_MAX];
  std::string a = given.size() && given[0] == '/'
                      ? path::normalize(given)
                      : path::normalize(path::join(::getcwd(cwd, sizeof(cwd)) ? cwd : "/", given));
  // Roots are canonical: resolve what exists above the path (never the last component).
  char real[PATH_MAX];
  const std::string parent = path::parent(a);
  if (a != "/" && ::realpath(parent.c_str(), real) != nullptr) a = path::join(real, a.substr(a.rfind('/') + 1));
  return a;
}

}  // namespace paddock
