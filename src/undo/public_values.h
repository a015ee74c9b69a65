// The store's own records (store.h, snapshot_manager.h, restore_gate.h) as the public values of
// paddock/undo.h: what a front end reads. Objects are named by their path in the store, so a
// caller needs nothing of the store's layout.
#pragma once

#include "paddock/undo.h"
#include "undo/restore_gate.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock {

// The record an UndoSession was made from, for the calls that take one back.
struct UndoSessionData {
  undo::SessionInfo info;
};

}  // namespace paddock

namespace paddock::undo {

// <store>/objects/ab/cdef…: where the store keeps the content HASH names ("" for no hash).
std::string object_path(const Store& store, const std::string& hash);

UndoSession to_public(SessionInfo s);
UndoChange to_public(const Store& store, const Change& c);
UndoHeld to_public(const Store& store, const Held& h);
UndoRestoreOutcome to_public(const Store& store, RestoreOutcome o);
std::vector<UndoChange> to_public(const Store& store, const std::vector<Change>& changes);

// What snapshot N (-1: the last) of S could not read (its excludes marked "unreadable: ...").
UndoUnreadable unreadable_of(const Store& store, const SessionInfo& s, int n = -1);

// The session an UndoSession was made from.
const SessionInfo& info_of(const UndoSession& s);

}  // namespace paddock::undo
