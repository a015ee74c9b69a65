// A restore is a door (issue 25, class 1): it writes back content a sandbox chose — a checkpoint it
// asked for, the tree as a run left it — into the host's tree. It asks the gate (src/gate/gate.h)
// before and after writing, like the end of a run does.
//
// Before: every entry the restore would create or change is judged by gate::judge_path, unless it
// is exactly what paddock recorded before any sandbox ran: the same path's entry in the session's
// snapshot 0 (taken before the sandbox started), same type, content and mode. What the gate names
// is held back: that path, and everything under it, stays as it is now, and the restore says
// which, why, and where the content is in the store (`paddock undo show SESSION:N` lists them; a
// file's object can be read with cat). Held back, not refused: the rest of the restore is what the
// user asked for, and a switch that writes the held entries too would be one word an agent can
// ask the user to type. Set-id bits are never written (a trusted file comes back without them,
// said) and no FIFO is ever made.
//
// After: gate::Check::before_write over the session's roots before the first write, finished after
// the last with the restore's trusted writes exempt: what names alone do not give away (a
// repository assembled from pieces, some of them trusted) is moved aside and listed.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gate/gate.h"
#include "undo/manifest.h"

namespace paddock::undo {

// An entry of the target a restore does not write.
struct Held {
  std::string root;
  std::string path;                    // relative to root
  std::optional<ManifestEntry> entry;  // the target's entry (a file's object holds its content)
  gate::Verdict verdict;
  std::size_t below = 0;               // entries under it left as they are with it
};

// The gate's verdict on the target's entry E (in ROOT) for a restore that would write it, judged
// as the project's (relative to ROOT) and, when it lies in HOME, as HOME's (relative to HOME; an
// empty HOME: every root is judged as a HOME too). nullopt: the gate names nothing.
std::optional<gate::Verdict> judge_entry(const std::string& root, const ManifestEntry& e, const std::string& home);

// What a restore to one snapshot may write without asking, per root: paths whose entry differs
// from snapshot 0 are untrusted; those the gate names are FLAGGED.
struct RootTrust {
  std::set<std::string> untrusted;
  std::map<std::string, gate::Verdict> flagged;
};
using Trust = std::map<std::string, RootTrust>;  // by root

// Set-id bits are never written by a restore: MODE without them for a regular file.
mode_t restorable_mode(EntryType type, mode_t mode);

// The absolute paths a restore wrote, each with whether what it wrote there is trusted (snapshot
// 0's content, or a removal); a directory is trusted when everything written at or under it is.
class WrittenPaths {
 public:
  void add(const std::string& abs, bool trusted);
  bool trusted(const std::string& abs) const;

 private:
  struct Less {
    bool operator()(const std::string& a, const std::string& b) const;
  };
  std::map<std::string, bool, Less> paths_;
};

// The gate's check around a restore's writes, as a seam: CALLED with the areas before the first
// write, it returns what to call after the last (what was moved aside). real_write_check() is
// gate::Check; tests on a fake tree pass their own.
using CheckAfter = std::function<std::vector<LeftBehind>(const gate::Trusted&)>;
using WriteCheck = std::function<CheckAfter(const std::vector<gate::Area>&)>;
WriteCheck real_write_check();

// The areas a restore into ROOTS writes: each root as a project, or as a HOME when it is HOME (or
// holds it: then HOME too).
std::vector<gate::Area> restore_areas(const std::vector<std::string>& roots, const std::string& home);

}  // namespace paddock::undo
