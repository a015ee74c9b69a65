// paddock undo: list, show, diff, restore and prune what `paddock run --undo` recorded
// (docs/undo.md). Flags, one call of the library's UndoStore (paddock/undo.h), printing.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/footer.h"
#include "cli/undo_notes.h"
#include "paddock/undo.h"
#include "policy/path_util.h"
#include "policy/units.h"
#include "sys/display.h"

extern char** environ;

namespace paddock::cli {
namespace {

using sys::display;

struct UndoFlags {
  bool json = false;
  std::string session;  // SESSION or SESSION:SNAPSHOT
  bool dry_run = false, yes = false, force = false, resume = false, restore_json = false;
  bool all = false;  // every project's sessions, not the current project's (undo/project.h)
  int limit = -1;    // undo list: the newest N (-1: kDefaultListLimit, or every one with --all; 0: every one)
  int keep = -1;
  std::string older_than, max_size;
};

// What `undo list` shows unless --limit or --all says otherwise: the newest sessions of the project.
constexpr int kDefaultListLimit = 20;

int fail(const Error& e, int code = 1) {
  print_command_error("paddock undo", e);
  return code;
}

// The store, with an interrupted restore finished first (any undo command does that).
Result<UndoStore> open_store() {
  auto store = UndoStore::open_default();
  if (!store) return store;
  auto pending = store->interrupted();
  if (pending && *pending) {
    std::fprintf(stderr, "[paddock] finishing an interrupted restore of session %s\n", (*pending)->session.c_str());
    auto r = store->finish_interrupted();
    if (!r) return std::move(r).take_error();
    if (*r) print_left_behind((*r)->outcome.left_behind);
    std::fprintf(stderr, "[paddock] done: the tree is as snapshot %s:%d%s\n", (*pending)->session.c_str(),
                 (*pending)->target,
                 *r && !(*r)->outcome.held.empty() ? " but for what was held back (paddock undo show lists it)" : "");
  }
  return store;
}

// Sessions the store could not read: said, and left out.
void print_unreadable(const std::vector<Error>& unreadable) {
  for (const Error& e : unreadable) std::fprintf(stderr, "paddock undo: %s\n", e.describe().c_str());
}

// Which project's sessions a command looked at.
std::string project_text(const UndoProject& p) {
  return display(p.dir) + (p.repository ? " (a git repository)" : "");
}

std::string roots_text(const std::vector<std::string>& roots) {
  std::string out;
  for (const auto& r : roots) out += (out.empty() ? "" : ", ") + display(r);
  return out;
}

// SESSION[:SNAPSHOT]; without a session the newest of the scope, said on stderr.
Result<UndoTarget> pick_target(const UndoStore& store, const std::string& given, int default_n, bool all) {
  auto t = store.target(given, default_n, all);
  if (!t) return t;
  print_unreadable(t->unreadable);
  if (!t->newest) return t;
  if (t->project)
    std::fprintf(stderr, "[paddock] undo: the newest session of %s: %s (it captured %s; --all: of every project)\n",
                 project_text(*t->project).c_str(), t->session.c_str(), roots_text(t->roots).c_str());
  else
    std::fprintf(stderr, "[paddock] undo: the newest session of every project (--all): %s (it captured %s)\n",
                 t->session.c_str(), roots_text(t->roots).c_str());
  return t;
}

// The paths after `--`, absolute as the store records roots.
std::vector<std::string> paths_after_dashes() {
  std::vector<std::string> out;
  if (const auto* after = command_after_dashes()) {
    for (const auto& p : *after) out.push_back(undo_path_argument(p));
  }
  return out;
}

// Every name and link target below was chosen by the sandbox: shown through sys::display.
std::string change_line(const UndoChange& c) {
  std::string p = display(c.full_path());
  if (c.type == UndoEntryType::Dir && c.kind != UndoChange::Kind::Mode) p += "/";
  char buf[64];
  switch (c.kind) {
    case UndoChange::Kind::Mode:
      std::snprintf(buf, sizeof(buf), " (%04o -> %04o)", static_cast<unsigned>(c.old_mode), static_cast<unsigned>(c.new_mode));
      return "mode      " + p + buf;
    case UndoChange::Kind::Symlink: return "symlink   " + p + " (" + display(c.old_target) + " -> " + display(c.new_target) + ")";
    case UndoChange::Kind::Type: return "type      " + p;
    case UndoChange::Kind::Added:
      return "added     " + p + (c.type == UndoEntryType::Symlink ? " -> " + display(c.new_target) : "");
    case UndoChange::Kind::Deleted: return "deleted   " + p;
    case UndoChange::Kind::Modified: return "modified  " + p;
  }
  return p;
}

// An entry a restore does not write, and how to get it by hand.
std::vector<std::string> held_lines(const UndoHeld& h) {
  std::string p = display(h.full_path());
  std::vector<std::string> out;
  const bool dir = h.type == UndoEntryType::Dir;
  out.push_back("held back " + p + (dir ? "/" : "") + "  (" + h.gate_class + ": " + h.why + ")");
  if (!h.type) return out;
  switch (*h.type) {
    case UndoEntryType::File: {
      char mode[16];
      std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(h.mode));
      out.push_back("          its content (mode " + std::string(mode) + "): " + h.object);
      break;
    }
    case UndoEntryType::Symlink: out.push_back("          a symlink to " + display(h.target)); break;
    case UndoEntryType::Dir:
      if (h.below > 0)
        out.push_back("          with the " + std::to_string(h.below) + " entr" + (h.below == 1 ? "y" : "ies") +
                      " in it (paddock undo show lists them)");
      break;
    default: break;
  }
  return out;
}

nlohmann::json held_json(const UndoHeld& h) {
  nlohmann::json j{{"root", h.root}, {"path", h.path}, {"class", h.gate_class}, {"why", h.why}, {"below", h.below}};
  if (h.type) {
    j["type"] = std::string(1, static_cast<char>(*h.type));
    if (!h.object.empty()) j["object"] = h.object;
    if (*h.type == UndoEntryType::Symlink) j["target"] = h.target;
  }
  return j;
}

nlohmann::json change_json(const UndoChange& c) {
  return {{"kind", std::string(to_string(c.kind))}, {"root", c.root}, {"path", c.path},
          {"type", std::string(1, static_cast<char>(c.type))}};
}

std::string command_text(const std::vector<std::string>& cmd) {
  std::string out;
  for (const auto& a : cmd) out += (out.empty() ? "" : " ") + a;
  return out;
}

void print_json(const nlohmann::json& j) {
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

int do_list(const UndoFlags& f) {
  auto store = open_store();
  if (!store) return fail(store.error());
  auto in = store->sessions(f.all);
  if (!in) return fail(in.error());
  print_unreadable(in->unreadable);
  // The newest LIMIT, oldest first as the store orders them.
  const int limit = f.limit >= 0 ? f.limit : (f.all ? 0 : kDefaultListLimit);
  const std::size_t shown = limit == 0 ? in->sessions.size() : std::min<std::size_t>(limit, in->sessions.size());
  const std::size_t hidden = in->sessions.size() - shown;
  if (in->project) {
    std::fprintf(stderr, "[paddock] undo: %zu session%s of %s (of %zu in the store; --all: every project's)\n",
                 in->sessions.size(), in->sessions.size() == 1 ? "" : "s", project_text(*in->project).c_str(),
                 in->in_store);
  }
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = hidden; i < in->sessions.size(); ++i) {
    const UndoSession* s = &in->sessions[i];
    auto ch = store->changes(*s, 0, s->last());
    std::size_t changed = ch ? ch->size() : 0;
    if (f.json) {
      nlohmann::json snaps = nlohmann::json::array();
      for (const auto& si : s->snapshots) snaps.push_back({{"n", si.n}, {"time", si.time}, {"label", si.label}});
      out.push_back({{"id", s->id}, {"created", s->created}, {"command", s->command}, {"roots", s->roots},
                     {"snapshots", snaps}, {"changes", changed}, {"incomplete", s->incomplete},
                     {"budget", s->budget}, {"budget_refused", s->budget_refused}});
      continue;
    }
    std::printf("%s  %s  %zu snapshot%s  %zu change%s  %s\n", s->id.c_str(), s->created.c_str(), s->snapshots.size(),
                s->snapshots.size() == 1 ? "" : "s", changed, changed == 1 ? "" : "s", display(command_text(s->command)).c_str());
    if (!in->project) std::printf("    captured %s\n", roots_text(s->roots).c_str());  // every project's: say whose
    for (const auto& si : s->snapshots) std::printf("    :%d  %s  %s\n", si.n, si.time.c_str(), display(si.label).c_str());
    if (!s->incomplete.empty()) std::printf("    incomplete: %s\n", display(s->incomplete).c_str());
    for (const auto& l : undo_budget_lines(s->budget_refused, s->budget)) std::printf("    %s\n", display(l).c_str());
    for (const auto& l : undo_unreadable_lines(store->unreadable(*s))) std::printf("    %s\n", display(l).c_str());
  }
  if (f.json) print_json(out);
  if (hidden > 0)
    std::fprintf(stderr, "[paddock] undo: %zu older session%s not shown (--limit N shows the newest N, --limit 0 all)\n",
                 hidden, hidden == 1 ? "" : "s");
  return 0;
}

int do_show(const UndoFlags& f) {
  auto store = open_store();
  if (!store) return fail(store.error());
  auto t = pick_target(*store, f.session, -1, f.all);
  if (!t) return fail(t.error());
  auto s = store->session(t->session);
  if (!s) return fail(s.error());
  const int last = s->last();
  const int to = t->n >= 0 ? t->n : last;
  if (to > last) return fail(make_error("session " + s->id + " has no snapshot " + std::to_string(to)));
  auto ch = store->changes(*s, 0, to);
  if (!ch) return fail(ch.error());
  // What a restore to this snapshot would hold back wherever it would write it.
  auto held = store->held_back(*s, to);
  if (!held) return fail(held.error());
  if (f.json) {
    nlohmann::json j{{"id", s->id}, {"created", s->created}, {"command", s->command}, {"cwd", s->cwd},
                     {"roots", s->roots}, {"not_captured", s->not_captured}, {"incomplete", s->incomplete},
                     {"budget", s->budget}, {"budget_refused", s->budget_refused}};
    j["excludes"] = nlohmann::json::array();
    for (const auto& e : s->excludes) {
      j["excludes"].push_back({{"kind", e.kind == UndoExclude::Kind::Name ? "name" : "path"}, {"pattern", e.pattern}, {"why", e.why}});
    }
    j["snapshots"] = nlohmann::json::array();
    for (const auto& si : s->snapshots) {
      j["snapshots"].push_back({{"n", si.n}, {"time", si.time}, {"label", si.label}, {"entries", si.entries},
                                {"files_hashed", si.files_hashed}, {"objects_new", si.objects_new}, {"bytes_new", si.bytes_new},
                                {"elapsed_us", si.elapsed_us}});
    }
    j["changes"] = nlohmann::json::array();
    for (const auto& c : *ch) j["changes"].push_back(change_json(c));
    j["held"] = nlohmann::json::array();
    for (const auto& h : *held) j["held"].push_back(held_json(h));
    print_json(j);
    return 0;
  }
  std::printf("session %s  %s  %s\n", s->id.c_str(), s->created.c_str(), display(command_text(s->command)).c_str());
  for (const auto& r : s->roots) std::printf("captured  %s\n", display(r).c_str());
  for (const auto& n : s->not_captured) std::printf("not captured  %s\n", display(n).c_str());
  for (const auto& e : s->excludes) {
    std::printf("excluded  %s%s  (%s)\n", e.kind == UndoExclude::Kind::Name ? "any " : "", display(e.pattern).c_str(),
                display(e.why).c_str());
  }
  for (const auto& si : s->snapshots) {
    std::printf(":%d  %s  %-28s %llu entries, %llu read, %llu new objects (%s)\n", si.n, si.time.c_str(),
                display(si.label).c_str(), static_cast<unsigned long long>(si.entries),
                static_cast<unsigned long long>(si.files_hashed), static_cast<unsigned long long>(si.objects_new),
                format_size(si.bytes_new).c_str());
  }
  if (!s->incomplete.empty()) std::printf("incomplete: %s\n", display(s->incomplete).c_str());
  for (const auto& l : undo_budget_lines(s->budget_refused, s->budget)) std::printf("%s\n", display(l).c_str());
  for (const auto& l : undo_unreadable_lines(store->unreadable(*s, to))) std::printf("%s\n", display(l).c_str());
  std::printf("changes from :0 to :%d:\n", to);
  if (ch->empty()) std::printf("  (none)\n");
  for (const auto& c : *ch) std::printf("  %s\n", change_line(c).c_str());
  if (!held->empty()) {
    std::printf("a restore to :%d holds these back (the host runs or trusts them; review, then copy by hand):\n", to);
    for (const auto& h : *held)
      for (const auto& l : held_lines(h)) std::printf("  %s\n", l.c_str());
  }
  return 0;
}

// A unified diff of two objects by /usr/bin/diff (absent side: /dev/null); binary files named.
bool is_binary(const std::string& file) {
  FILE* fp = std::fopen(file.c_str(), "rb");
  if (fp == nullptr) return false;
  char buf[8192];
  std::size_t n = std::fread(buf, 1, sizeof(buf), fp);
  std::fclose(fp);
  for (std::size_t i = 0; i < n; ++i) {
    if (buf[i] == 0) return true;
  }
  return false;
}

// LABEL (a path the sandbox chose) is shown through sys::display, in diff's headers too.
void unified_diff(const std::string& label, const std::string& a, const std::string& b) {
  const std::string shown = display(label);
  if (is_binary(a) || is_binary(b)) {
    std::printf("Binary files a/%s and b/%s differ\n", shown.c_str(), shown.c_str());
    return;
  }
  std::fflush(stdout);
  std::vector<std::string> args = {"diff", "-u", "--label", "a/" + shown, "--label", "b/" + shown, a, b};
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "diff", nullptr, nullptr, argv.data(), environ) != 0) {
    std::printf("(diff is not installed: %s changed)\n", shown.c_str());
    return;
  }
  int st;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
}

int do_diff(const UndoFlags& f) {
  auto store = open_store();
  if (!store) return fail(store.error());
  auto t = pick_target(*store, f.session, -1, f.all);
  if (!t) return fail(t.error());
  auto s = store->session(t->session);
  if (!s) return fail(s.error());
  auto ch = store->changes(*s, 0, t->n >= 0 ? t->n : s->last());
  if (!ch) return fail(ch.error());
  const std::vector<std::string> paths = paths_after_dashes();
  for (const auto& c : *ch) {
    const std::string full = c.full_path();
    if (!paths.empty()) {
      bool in = false;
      for (const auto& p : paths) in = in || path::is_at_or_under(full, p);
      if (!in) continue;
    }
    const bool old_file = !c.old_object.empty(), new_file = !c.new_object.empty();
    if ((!old_file && !new_file) || c.kind == UndoChange::Kind::Mode) {
      std::printf("%s\n", change_line(c).c_str());
      continue;
    }
    unified_diff(full.substr(1), old_file ? c.old_object : "/dev/null", new_file ? c.new_object : "/dev/null");
  }
  return 0;
}

// `restore --json`: the plan (with --dry-run) or what was done, as one object on stdout.
// What is held back (the host runs or trusts it) and what the gate's check moved aside are in it.
nlohmann::json restore_json(const UndoRestoreRequest& req, const UndoRestoreOutcome& o, bool dry_run) {
  const std::string& session = req.session;
  nlohmann::json j{{"session", session},
                   {"target", req.target},
                   {"meaning", req.meaning == UndoRestoreMeaning::ScopeState ? "snapshot" : "session changes"},
                   {"later_sessions", o.later_sessions},
                   {"dry_run", dry_run},
                   {"applied", o.applied}};
  j["changes"] = nlohmann::json::array();
  for (const auto& c : o.changes) j["changes"].push_back(change_json(c));
  j["held"] = nlohmann::json::array();
  for (const auto& h : o.held) j["held"].push_back(held_json(h));
  j["left_behind"] = nlohmann::json::array();
  for (const LeftBehind& l : o.left_behind)
    j["left_behind"].push_back({{"path", l.path}, {"what", l.what}, {"action", l.action}});
  j["conflicts"] = o.conflicts;
  j["warnings"] = o.warnings;
  if (o.applied) j["undo_with"] = session + ":" + std::to_string(o.before_snapshot);
  return j;
}

// What a restore or a revert to SESSION:N does, in words (one line on stderr, before its list).
std::string meaning_line(const UndoRestoreRequest& req, const UndoRestoreOutcome& o) {
  const std::string target = req.session + ":" + std::to_string(req.target);
  if (req.meaning == UndoRestoreMeaning::SessionChanges)
    return "[paddock] undo revert: takes back what session " + req.session + " changed after :" +
           std::to_string(req.target) + "; later sessions' changes stay (paddock undo restore " + target +
           " brings the whole scope back to that snapshot)";
  std::string line = "[paddock] undo restore: brings the whole scope back to snapshot " + target +
                     ", as it was then; ";
  if (o.later_sessions.empty()) return line + "no later session captured it";
  line += "the changes of " + std::to_string(o.later_sessions.size()) + " later session" +
          (o.later_sessions.size() == 1 ? "" : "s") + " are taken back too (";
  for (std::size_t i = 0; i < o.later_sessions.size() && i < 5; ++i) line += (i ? ", " : "") + o.later_sessions[i];
  if (o.later_sessions.size() > 5) line += ", ...";
  return line + "; paddock undo revert " + target + " takes back only that session's)";
}

int do_restore(const UndoFlags& f, UndoRestoreMeaning meaning) {
  if (f.resume) {
    auto store = UndoStore::open_default();
    if (!store) return fail(store.error());
    auto r = store->finish_interrupted();
    if (!r) return fail(r.error());
    if (!*r) {
      std::fprintf(stderr, "[paddock] no interrupted restore\n");
      return 0;
    }
    const UndoRestoreOutcome& o = (*r)->outcome;
    print_left_behind(o.left_behind);
    std::fprintf(stderr, "[paddock] finished the interrupted restore (%zu changes%s)\n", o.changes.size(),
                 o.held.empty() ? "" : (", " + std::to_string(o.held.size()) + " held back").c_str());
    return 0;
  }
  auto store = open_store();  // finishes an interrupted restore first
  if (!store) return fail(store.error());
  auto t = pick_target(*store, f.session, 0, f.all);
  if (!t) return fail(t.error());
  UndoRestoreRequest req;
  req.session = t->session;
  req.target = t->n;
  req.force = f.force;
  req.meaning = meaning;
  const bool whole = meaning == UndoRestoreMeaning::ScopeState;
  req.paths = paths_after_dashes();
  req.dry_run = true;
  auto plan = store->restore(req);
  if (!plan) return fail(plan.error());
  const std::string target = req.session + ":" + std::to_string(req.target);
  // What is held back is listed with the changes, before anything is asked or done.
  auto list_held = [&](const UndoRestoreOutcome& o) {
    if (o.held.empty() || f.restore_json) return;  // --json: in the object
    std::printf("not restored: %zu entr%s of %s that the host runs or trusts (the sandbox chose them; review, then "
                "copy by hand):\n", o.held.size(), o.held.size() == 1 ? "y" : "ies", target.c_str());
    for (const auto& h : o.held)
      for (const auto& l : held_lines(h)) std::printf("  %s\n", l.c_str());
  };
  auto held_note = [](const UndoRestoreOutcome& o) {
    return o.held.empty() ? std::string() : ", " + std::to_string(o.held.size()) + " held back";
  };
  const bool refused = !plan->conflicts.empty() && !f.force;
  std::fprintf(stderr, "%s\n", meaning_line(req, *plan).c_str());
  if (f.restore_json && (f.dry_run || plan->changes.empty() || refused))
    print_json(restore_json(req, *plan, true));
  if (plan->changes.empty()) {
    // A restore changes what differs between the session's last snapshot and the target.
    list_held(*plan);
    std::fprintf(stderr, "[paddock] nothing to restore: %s already as %s%s\n",
                 whole ? "the scope as last recorded is" : "the session's last snapshot is", target.c_str(),
                 plan->held.empty() ? "" : " (but for what is held back)");
    return 0;
  }
  if (!f.restore_json) {
    for (const auto& c : plan->changes) std::printf("%s\n", change_line(c).c_str());
  }
  list_held(*plan);
  for (const auto& w : plan->warnings) std::fprintf(stderr, "[paddock] warning: %s\n", display(w).c_str());
  if (refused) {
    std::fprintf(stderr, "paddock undo: refusing to restore: these changed after %s and would be overwritten:\n",
                 whole ? "paddock's last snapshot of them" : "the session's last snapshot");
    for (const auto& c : plan->conflicts) std::fprintf(stderr, "  %s\n", display(c).c_str());
    std::fprintf(stderr, "paddock undo: hint: --force overwrites them (what is there now is snapshotted first)\n");
    return 1;
  }
  if (f.dry_run) {
    std::fprintf(stderr, "[paddock] dry run: %zu changes would %s%s\n", plan->changes.size(),
                 whole ? ("bring the whole scope back to " + target).c_str()
                       : ("take back what session " + req.session + " changed after :" + std::to_string(req.target)).c_str(),
                 held_note(*plan).c_str());
    return 0;
  }
  if (!f.yes) {
    if (!::isatty(0)) {
      std::fprintf(stderr, "paddock undo: not restoring without a terminal to ask on; --yes restores without asking\n");
      return 1;
    }
    std::fprintf(stderr, "%s %zu changes %s %s%s? [y/N] ", whole ? "Restore" : "Revert", plan->changes.size(),
                 whole ? "to" : "of session", whole ? target.c_str() : (req.session + " after :" + std::to_string(req.target)).c_str(),
                 held_note(*plan).c_str());
    std::string answer;
    if (!std::getline(std::cin, answer) || (answer != "y" && answer != "Y" && answer != "yes")) {
      std::fprintf(stderr, "paddock undo: not restored\n");
      return 1;
    }
  }
  req.dry_run = false;
  const auto t0 = std::chrono::steady_clock::now();
  auto done = store->restore(req);
  if (!done) return fail(done.error());
  if (f.restore_json) print_json(restore_json(req, *done, false));
  if (!done->applied) {
    std::fprintf(stderr, "paddock undo: the tree changed while asking; nothing restored, run it again\n");
    return 1;
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& w : done->warnings) std::fprintf(stderr, "[paddock] warning: %s\n", display(w).c_str());
  print_left_behind(done->left_behind);
  std::fprintf(stderr, "[paddock] %s %s (%zu changes%s, %lld ms); undo this restore: paddock undo restore %s:%d\n",
               whole ? "restored the scope to" : "took back the changes of", whole ? target.c_str() : (req.session + " after :" + std::to_string(req.target)).c_str(), done->changes.size(),
               done->held.empty() ? "" : (held_note(*done) + ": listed above").c_str(), static_cast<long long>(ms),
               req.session.c_str(), done->before_snapshot);
  return 0;
}

int do_prune(const UndoFlags& f) {
  // The store's quota: the oldest sessions go until its objects fit (the default quota unless
  // --max-size names another).
  UndoPruneOptions o;
  o.keep = f.keep;
  if (!f.max_size.empty()) {
    auto max = parse_size(f.max_size);
    if (!max) return fail(make_error(max.error().message, "--max-size " + f.max_size), 2);
    o.quota = *max;
  }
  auto store = open_store();
  if (!store) return fail(store.error());
  if (!f.older_than.empty()) {
    auto d = parse_duration(f.older_than);
    if (!d) return fail(make_error(d.error().message, "--older-than " + f.older_than), 2);
    o.older_than = *d;
  }
  auto r = store->prune(o);
  if (!r) return fail(r.error());
  std::fprintf(stderr, "[paddock] pruned %zu session%s, freed %s; %zu left, store objects %s (quota %s)\n", r->removed,
               r->removed == 1 ? "" : "s", format_size(r->freed).c_str(), r->left,
               r->size ? format_size(*r->size).c_str() : "?", format_size(r->quota).c_str());
  return 0;
}

}  // namespace

void register_undo(CLI::App& app) {
  auto f = std::make_shared<UndoFlags>();
  auto* cmd = app.add_subcommand("undo", "See and take back what a `paddock run --undo` changed");
  cmd->require_subcommand(1);
  auto session = [&f](CLI::App* sub, const char* help) {
    values(sub->add_option("session", f->session, help), ValueKind::Session, "SESSION[:N]");
  };
  auto* list = cmd->add_subcommand("list", "Sessions and their snapshots: when, command, files changed");
  list->add_flag("--json", f->json, "JSON output");
  list->add_flag("--all", f->all, "Every project's sessions, every one of them (default: the current project's newest 20)");
  values(list->add_option("--limit", f->limit, "The newest N sessions (0: all; default 20)")->check(CLI::Validator(
             [](std::string& v) {
               return !v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos
                          ? std::string()
                          : "not a number of sessions: \"" + v + "\"";
             },
             "")),
         ValueKind::Text, "N");
  list->callback([f] { set_exit_code(do_list(*f)); });
  auto* show = cmd->add_subcommand("show", "What a session changed, its scope and excludes");
  session(show, "The session, and the snapshot to compare with its first (default: the current project's newest session, its last)");
  show->add_flag("--json", f->json, "JSON output");
  show->add_flag("--all", f->all, "Without a session: the newest of every project's (default: the current project's)");
  show->callback([f] { set_exit_code(do_show(*f)); });
  auto* diff = cmd->add_subcommand("diff", "Unified diff of a session's changes (-- PATH... to limit)");
  session(diff, "The session, and the snapshot to compare with its first (default: the current project's newest session, its last)");
  diff->add_flag("--all", f->all, "Without a session: the newest of every project's (default: the current project's)");
  diff->callback([f] { set_exit_code(do_diff(*f)); });
  // Two meanings of "back to a snapshot", each by its name (UndoRestoreMeaning).
  auto restoring = [&](const char* name, const char* help, const char* session_help, UndoRestoreMeaning meaning) {
    auto* sub = cmd->add_subcommand(name, help);
    session(sub, session_help);
    sub->add_flag("--dry-run", f->dry_run, "Say what would change, change nothing");
    sub->add_flag("--yes,-y", f->yes, "Do not ask");
    sub->add_flag("--force", f->force, "Overwrite files changed since paddock's last snapshot of them");
    sub->add_flag("--resume", f->resume, "Finish a restore that was interrupted");
    sub->add_flag("--all", f->all, "Without a session: the newest of every project's (default: the current project's)");
    sub->add_flag("--json", f->restore_json,
                  "The changes (what --dry-run would do, or what was done), conflicts and warnings as JSON on stdout");
    sub->callback([f, meaning] { set_exit_code(do_restore(*f, meaning)); });
  };
  restoring("restore",
            "Bring the whole scope back to a snapshot, as it was then: later sessions' changes are taken back too "
            "(default: the current project's newest session, :0)",
            "The session and the snapshot to go back to (default: the current project's newest session, :0)",
            UndoRestoreMeaning::ScopeState);
  restoring("revert",
            "Take back one session's changes only (after its snapshot :N, default :0); later sessions' changes stay",
            "The session, and the snapshot after which its changes are taken back (default: the current project's "
            "newest session, :0)",
            UndoRestoreMeaning::SessionChanges);
  auto* prune = cmd->add_subcommand(
      "prune", "Remove old sessions and the objects only they used (every project's: the store and its quota are shared)");
  values(prune->add_option("--keep", f->keep, "Keep the N most recent sessions"), ValueKind::Text, "N");
  values(prune->add_option("--older-than", f->older_than, "Remove sessions older than DURATION (30d, 12h)"),
         ValueKind::Text, "DURATION");
  values(prune->add_option("--max-size", f->max_size,
                           "Remove the oldest sessions until the store's objects fit in SIZE (default 10G: the store's quota)"),
         ValueKind::Text, "SIZE");
  prune->callback([f] { set_exit_code(do_prune(*f)); });
}

}  // namespace paddock::cli
