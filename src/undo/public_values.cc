#include "undo/public_values.h"

#include <utility>

namespace paddock::undo {

// The public enums are the store's, value for value (the casts below rely on it).
static_assert(static_cast<int>(UndoChange::Kind::Added) == static_cast<int>(Change::Kind::Added) &&
              static_cast<int>(UndoChange::Kind::Modified) == static_cast<int>(Change::Kind::Modified) &&
              static_cast<int>(UndoChange::Kind::Deleted) == static_cast<int>(Change::Kind::Deleted) &&
              static_cast<int>(UndoChange::Kind::Mode) == static_cast<int>(Change::Kind::Mode) &&
              static_cast<int>(UndoChange::Kind::Symlink) == static_cast<int>(Change::Kind::Symlink) &&
              static_cast<int>(UndoChange::Kind::Type) == static_cast<int>(Change::Kind::Type));
static_assert(static_cast<char>(UndoEntryType::File) == static_cast<char>(EntryType::File) &&
              static_cast<char>(UndoEntryType::Dir) == static_cast<char>(EntryType::Dir) &&
              static_cast<char>(UndoEntryType::Symlink) == static_cast<char>(EntryType::Symlink) &&
              static_cast<char>(UndoEntryType::Fifo) == static_cast<char>(EntryType::Fifo) &&
              static_cast<char>(UndoEntryType::Other) == static_cast<char>(EntryType::Other));

std::string object_path(const Store& store, const std::string& hash) {
  if (hash.size() < 3) return {};
  return store.dir() + "/objects/" + hash.substr(0, 2) + "/" + hash.substr(2);
}

UndoSession to_public(SessionInfo s) {
  UndoSession out;
  out.id = s.id;
  out.created = s.created;
  out.created_ns = s.created_ns;
  out.command = s.command;
  out.cwd = s.cwd;
  out.roots = s.roots;
  for (const Exclude& e : s.excludes)
    out.excludes.push_back({e.kind == Exclude::Kind::Name ? UndoExclude::Kind::Name : UndoExclude::Kind::Path,
                            e.pattern, e.why});
  out.not_captured = s.not_captured;
  out.budget = s.budget;
  out.budget_refused = s.budget_refused;
  for (const SnapshotInfo& si : s.snapshots)
    out.snapshots.push_back({si.n, si.time, si.label, si.entries, si.files_hashed, si.objects_new, si.bytes_new,
                             si.elapsed_us});
  out.incomplete = s.incomplete;
  out.data = std::make_shared<const UndoSessionData>(UndoSessionData{std::move(s)});
  return out;
}

const SessionInfo& info_of(const UndoSession& s) {
  static const SessionInfo kNone;
  return s.data ? s.data->info : kNone;
}

UndoUnreadable unreadable_of(const Store& store, const SessionInfo& s, int n) {
  UndoUnreadable out;
  if (s.snapshots.empty()) return out;
  out.n = n < 0 ? s.snapshots.back().n : n;
  auto meta = store.load_meta(s.id, out.n);
  if (!meta) {
    out.error = meta.error().describe();
    return out;
  }
  for (const auto& r : *meta)
    for (const auto& e : r.meta.excludes)
      if (e.why.rfind("unreadable: ", 0) == 0) out.paths.push_back(r.meta.root + "/" + e.pattern + " (" + e.why + ")");
  return out;
}

UndoChange to_public(const Store& store, const Change& c) {
  UndoChange out;
  out.kind = static_cast<UndoChange::Kind>(static_cast<int>(c.kind));
  out.root = c.root;
  out.path = c.path;
  out.type = static_cast<UndoEntryType>(static_cast<char>(c.type));
  out.old_mode = c.old_mode;
  out.new_mode = c.new_mode;
  out.old_object = object_path(store, c.old_hash);
  out.new_object = object_path(store, c.new_hash);
  out.old_target = c.old_target;
  out.new_target = c.new_target;
  return out;
}

std::vector<UndoChange> to_public(const Store& store, const std::vector<Change>& changes) {
  std::vector<UndoChange> out;
  out.reserve(changes.size());
  for (const Change& c : changes) out.push_back(to_public(store, c));
  return out;
}

UndoHeld to_public(const Store& store, const Held& h) {
  UndoHeld out;
  out.root = h.root;
  out.path = h.path;
  out.gate_class = std::string(gate::to_string(h.verdict.cls));
  out.why = h.verdict.why;
  out.below = h.below;
  if (h.entry) {
    out.type = static_cast<UndoEntryType>(static_cast<char>(h.entry->st.type));
    out.mode = h.entry->st.mode;
    out.object = object_path(store, h.entry->hash);
    if (h.entry->st.type == EntryType::Symlink) out.target = h.entry->target;
  }
  return out;
}

UndoRestoreOutcome to_public(const Store& store, RestoreOutcome o) {
  UndoRestoreOutcome out;
  out.changes = to_public(store, o.changes);
  out.conflicts = std::move(o.conflicts);
  for (const Held& h : o.held) out.held.push_back(to_public(store, h));
  out.left_behind = std::move(o.left_behind);
  out.applied = o.applied;
  out.before_snapshot = o.before_snapshot;
  out.warnings = std::move(o.warnings);
  out.later_sessions = std::move(o.later_sessions);
  return out;
}

}  // namespace paddock::undo

namespace paddock {

std::string_view to_string(UndoChange::Kind k) {
  return undo::to_string(static_cast<undo::Change::Kind>(static_cast<int>(k)));
}

}  // namespace paddock
