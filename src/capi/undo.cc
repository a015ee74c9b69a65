// The C API's undo: the store, its sessions, a recording around a run, a restore
// (paddock/paddock.h; docs/undo.md). Still over SnapshotManager, not yet over paddock/undo.h's
// UndoStore and UndoRecorder (which `paddock run --undo` and `paddock undo` call): its recording
// takes snapshots on demand (no budget, no checkpoint channel) and its restore's default session
// is the store's newest, not the current project's.
#include "capi/handles.h"
#include "paddock/state.h"
#include "undo/scope.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

struct paddock_undo_store {
  std::shared_ptr<paddock::undo::Store> store;
};

struct paddock_undo_recording {
  std::shared_ptr<paddock::undo::Store> store;  // kept alive, and locked, while recording
  std::unique_ptr<paddock::undo::SnapshotManager> manager;
  paddock::undo::SessionInfo session;
};

namespace paddock::capi {
namespace {

constexpr std::size_t kRestoreOptionsV1 = sizeof(paddock_undo_restore_options);

nlohmann::json restore_json(const std::string& session, int target, const undo::RestoreOutcome& o) {
  nlohmann::json j{{"applied", o.applied}, {"session", session}, {"target", target},
                   {"before_snapshot", o.before_snapshot}, {"conflicts", o.conflicts}, {"warnings", o.warnings}};
  j["changes"] = nlohmann::json::array();
  for (const undo::Change& c : o.changes)
    j["changes"].push_back({{"kind", std::string(undo::to_string(c.kind))}, {"root", c.root}, {"path", c.path}});
  j["held"] = nlohmann::json::array();
  for (const undo::Held& h : o.held) j["held"].push_back({{"root", h.root}, {"path", h.path}, {"why", h.verdict.why}});
  j["left_behind"] = nlohmann::json::array();
  for (const LeftBehind& l : o.left_behind)
    j["left_behind"].push_back({{"path", l.path}, {"what", l.what}, {"action", l.action}});
  return j;
}

}  // namespace
}  // namespace paddock::capi

using namespace paddock;
using namespace paddock::capi;

extern "C" {

paddock_error* paddock_undo_store_open(const char* dir, int create, paddock_undo_store** out) {
  return guarded([&]() -> paddock_error* {
    std::string where = or_empty(dir);
    if (where.empty()) {
      auto state = state_layout_of_process();
      if (!state) return to_c(std::move(state).take_error());
      where = state->undo_dir;
    }
    auto s = undo::Store::open(where, create != 0);
    if (!s) return to_c(std::move(s).take_error());
    *out = new paddock_undo_store{std::shared_ptr<undo::Store>(std::move(*s))};
    return nullptr;
  });
}

const char* paddock_undo_store_dir(const paddock_undo_store* s) { return s->store->dir().c_str(); }
void paddock_undo_store_free(paddock_undo_store* s) { delete s; }

paddock_error* paddock_undo_list(paddock_undo_store* s, char** json_out) {
  return guarded([&]() -> paddock_error* {
    auto ids = s->store->session_ids();
    if (!ids) return to_c(std::move(ids).take_error());
    nlohmann::json out = nlohmann::json::array();
    for (const std::string& id : *ids) {
      auto info = s->store->load_session(id);
      if (!info) return to_c(std::move(info).take_error());
      nlohmann::json snaps = nlohmann::json::array();
      for (const undo::SnapshotInfo& si : info->snapshots)
        snaps.push_back({{"n", si.n}, {"time", si.time}, {"label", si.label}});
      out.push_back({{"id", info->id}, {"created", info->created}, {"command", info->command}, {"cwd", info->cwd},
                     {"roots", info->roots}, {"snapshots", snaps}, {"incomplete", info->incomplete}});
    }
    *json_out = dup_string(json_text(out));
    return nullptr;
  });
}

paddock_error* paddock_undo_begin(paddock_undo_store* s, const paddock_policy* p, const char* const* argv,
                                  paddock_undo_recording** out) {
  return guarded([&]() -> paddock_error* {
    auto state = state_layout_of_process();
    if (!state) return to_c(std::move(state).take_error());
    undo::Scope scope = undo::scope_from_policy(p->policy, state->masked(), undo::default_excludes());
    if (scope.roots.empty())
      return to_c(make_error("nothing to capture: the run has no writable directory", "paddock_undo_begin"));
    std::vector<std::string> command;
    for (; argv != nullptr && *argv != nullptr; ++argv) command.emplace_back(*argv);
    auto rec = std::make_unique<paddock_undo_recording>();
    rec->store = s->store;
    rec->manager = std::make_unique<undo::SnapshotManager>(*rec->store);
    auto session = rec->manager->begin(scope, command, p->policy.cwd);
    if (!session) return to_c(std::move(session).take_error());
    rec->session = std::move(*session);
    auto snap = rec->manager->snapshot(rec->session, "before run");
    if (!snap) return to_c(std::move(snap).take_error());
    *out = rec.release();
    return nullptr;
  });
}

const char* paddock_undo_recording_session(const paddock_undo_recording* rec) { return rec->session.id.c_str(); }

paddock_error* paddock_undo_snapshot(paddock_undo_recording* rec, const char* label) {
  return guarded([&]() -> paddock_error* {
    auto snap = rec->manager->snapshot(rec->session, or_empty(label));
    if (!snap) return to_c(std::move(snap).take_error());
    return nullptr;
  });
}

void paddock_undo_recording_free(paddock_undo_recording* rec) { delete rec; }

paddock_error* paddock_undo_restore(paddock_undo_store* s, const paddock_undo_restore_options* given,
                                    char** outcome_json) {
  return guarded([&]() -> paddock_error* {
    auto o = read_options(given, kRestoreOptionsV1, "paddock_undo_restore_options");
    if (!o) return to_c(std::move(o).take_error());
    undo::SnapshotManager mgr(*s->store);
    // As every `paddock undo` command: an interrupted restore is finished first.
    auto journal = s->store->load_journal();
    if (!journal) return to_c(std::move(journal).take_error());
    if (*journal) {
      if (auto r = mgr.resume(); !r) return to_c(std::move(r).take_error());
    }
    undo::RestoreRequest req;
    req.session = or_empty(o->session);
    if (req.session.empty()) {
      auto ids = s->store->session_ids();
      if (!ids) return to_c(std::move(ids).take_error());
      if (ids->empty()) return to_c(make_error("no undo sessions", s->store->dir(), "paddock run --undo records one"));
      req.session = ids->back();
    }
    req.target = o->target;
    req.force = o->force != 0;
    req.dry_run = o->dry_run != 0;
    auto r = mgr.restore(req);
    if (!r) return to_c(std::move(r).take_error());
    *outcome_json = dup_string(json_text(restore_json(req.session, req.target, *r)));
    return nullptr;
  });
}

}  // extern "C"
