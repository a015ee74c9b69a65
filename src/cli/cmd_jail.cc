// paddock jail: persistent jails (docs/jails.md). Each subcommand parses its flags, makes one call
// of paddock/jail.h (Store::create, exec, list, show, remove_jail, diff, sync, prune) and prints
// what comes back; exec's run is paddock/run.h's, printed as `paddock run` prints it.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <memory>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/footer.h"
#include "cli/progress_line.h"
#include "cli/run_command.h"
#include "paddock/jail.h"
#include "paddock/jail_backend.h"
#include "paddock/profile.h"
#include "policy/path_util.h"
#include "policy/units.h"
#include "sys/anchored_dir.h"
#include "sys/display.h"

namespace paddock::cli {
namespace {

std::string when(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The backends a jail (and `paddock run --backend`) can name: paddock/jail_backend.h.
Result<void> check_backend(const std::string& b) {
  auto j = jail::make_jail(b);
  if (!j) return std::move(j).take_error();
  return {};
}

Result<jail::Store> store() { return jail::Store::open_default(); }

// ---- create ---------------------------------------------------------------------------------

struct CreateFlags {
  std::string name, workspace = "copy", home = "stable", profile = "default", source, backend = "native", max_size;
};

int do_create(const CreateFlags& f) {
  jail::CreateOptions o;
  o.name = f.name;
  auto ws = jail::parse_workspace_mode(f.workspace);
  if (!ws) return print_error(ws.error()), 2;
  auto home = jail::parse_home_mode(f.home);
  if (!home) return print_error(home.error()), 2;
  if (auto b = check_backend(f.backend); !b) return print_error(b.error()), 2;
  if (auto n = jail::check_name(f.name); !n) return print_error(n.error()), 2;
  o.workspace = *ws;
  o.home = *home;
  o.backend = f.backend;
  auto ctx = HostContext::from_process();
  if (!ctx) return print_error(ctx.error()), 125;
  o.source = path::normalize(absolute_path(f.source.empty() ? "." : f.source, *ctx));
  auto prof = find_profile(f.profile, *ctx);
  if (!prof) return print_error(prof.error()), 2;
  o.profile = f.profile;
  o.profile_root = prof->file.rfind("<built-in", 0) == 0 ? "" : prof->file;
  if (!f.max_size.empty()) {
    auto s = parse_size(f.max_size);
    if (!s) return print_error(make_error(s.error().message, "--max-size " + f.max_size)), 2;
    o.max_size_bytes = *s;
  }
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  // A large source takes a while to copy: progress (cli/progress_line.h), once past a second.
  auto line = std::make_shared<ProgressLine>("PADDOCK_JAIL_PROGRESS_AFTER_MS");
  o.progress = [line](const jail::CopyStats& c) {
    line->update([&](double secs) {
      return "jail: copying the source: " + std::to_string(c.files) + " files, " + format_size(c.bytes) + ", " +
             format_size(static_cast<std::uint64_t>(static_cast<double>(c.bytes) / secs)) + "/s";
    });
  };
  auto r = st->create(o);
  line->finish();
  if (!r) return print_error(r.error()), 1;
  std::fprintf(stderr, "[paddock] jail %s: %s workspace at %s, %s HOME\n", r->name.c_str(),
               std::string(to_string(r->workspace_mode)).c_str(), r->workspace_root.c_str(),
               std::string(to_string(r->home_mode)).c_str());
  return 0;
}

// ---- exec / enter ---------------------------------------------------------------------------

struct ExecFlags {
  std::string name;
  RunFlags run;
};

int do_exec(ExecFlags f, bool enter) {
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  // Paths on the command line are the user's, relative to where paddock was started, not to
  // the workspace.
  auto ctx = HostContext::from_process();
  if (!ctx) return print_error(ctx.error()), 125;
  for (auto& [access, p] : f.run.policy.rules) p = path::normalize(absolute_path(p, *ctx));
  if (enter) {
    const char* shell = std::getenv("SHELL");
    f.run.command = {shell && *shell ? shell : "/bin/sh"};
  }
  auto req = run_request_from(f.run);
  if (!req) return print_error(req.error()), 2;
  return print_run_outcome(jail::exec(*st, f.name, std::move(*req)), f.run);
}

// ---- list / show ----------------------------------------------------------------------------

int do_list(bool json) {
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  auto all = st->list();
  if (!all) return print_error(all.error()), 1;
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : *all) j.push_back(jail::runtime_to_json(r));
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("%-24s %-9s %-10s %-21s %s\n", "NAME", "WORKSPACE", "HOME", "LAST USED", "SOURCE");
  for (const auto& r : *all)
    std::printf("%-24s %-9s %-10s %-21s %s\n", r.name.c_str(), std::string(to_string(r.workspace_mode)).c_str(),
                std::string(to_string(r.home_mode)).c_str(), when(r.last_used).c_str(), r.source.c_str());
  return 0;
}

// `paddock jail show NAME`: the jail as a person reads it (times in UTC); --json: runtime.json
// with the size.
int do_show(const std::string& name, bool json) {
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  auto shown = jail::show(*st, name);
  if (!shown) return print_error(shown.error()), 1;
  const jail::Runtime* r = &shown->runtime;
  const std::optional<std::uint64_t>& used = shown->size_bytes;
  if (json) {
    nlohmann::json j = jail::runtime_to_json(*r);
    if (used) j["size_bytes"] = *used;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  auto row = [](const char* label, const std::string& value) { std::printf("%-11s %s\n", label, value.c_str()); };
  row("jail", r->name);
  row("source", r->source);
  row("workspace", std::string(to_string(r->workspace_mode)) + "  " + r->workspace_root);
  row("home", std::string(to_string(r->home_mode)) + (r->home_root.empty() ? "" : "  " + r->home_root));
  row("profile", r->profile + (r->profile_root.empty() ? " (built in)" : "  " + r->profile_root));
  row("backend", r->backend);
  if (r->workspace_mode == jail::WorkspaceMode::Worktree) {
    row("branch", r->git_branch + " (from " + r->git_base.substr(0, 12) + ")");
  }
  row("created", when(r->created));
  row("last used", when(r->last_used));
  row("size", (used ? format_size(*used) : "unknown") +
                  (r->max_size_bytes ? " of at most " + format_size(*r->max_size_bytes) : std::string()));
  return 0;
}

int do_rm(const std::string& name, bool force) {
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  if (auto n = jail::check_name(name); !n) return print_error(n.error()), 2;
  if (auto rm = jail::remove_jail(*st, name, force); !rm) return print_error(rm.error()), 1;
  std::fprintf(stderr, "[paddock] removed jail %s\n", name.c_str());
  return 0;
}

// ---- diff / sync ----------------------------------------------------------------------------

// Each change's status and path, and for one sync holds back, why (`held`).
nlohmann::json changes_json(const std::vector<jail::Change>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : changes) {
    nlohmann::json j{{"status", std::string(1, c.kind)}, {"path", c.path}};
    if (!c.held.empty()) j["held"] = c.held;
    out.push_back(std::move(j));
  }
  return out;
}

std::string dump(const nlohmann::json& j) {
  // Paths come from the jail: bytes that are not UTF-8 are replaced, never thrown on.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The one line saying what the ignore rules left out (nothing when nothing was).
void print_ignored(const jail::IgnoredCount& n) {
  if (n.files == 0) return;
  std::string by_jail;
  if (n.by_jail)
    by_jail = ", " + std::to_string(n.by_jail) + " of them only by .gitignore files the jail wrote";
  std::fprintf(stderr, "[paddock] %zu ignored file(s) left out%s (--include-ignored to include them)\n", n.files,
               by_jail.c_str());
}

nlohmann::json ignored_json(const jail::IgnoredCount& n) {
  return {{"files", n.files}, {"by_jail", n.by_jail}};
}

int do_diff(const std::string& name, bool stat_only, bool json, bool include_ignored) {
  if (json && !stat_only) {
    std::fprintf(stderr, "paddock jail diff: --json goes with --name-status (the patch itself is text)\n");
    return 2;
  }
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  auto r = st->load(name);
  if (!r) return print_error(r.error()), 1;
  auto d = jail::diff(*r, !stat_only, false, include_ignored ? jail::Ignored::Include : jail::Ignored::LeaveOut);
  if (!d) return print_error(d.error()), 1;
  print_ignored(d->ignored);
  if (json) {
    std::printf("%s\n", dump({{"jail", r->name},
                              {"source", r->source},
                              {"changes", changes_json(d->changes)},
                              {"ignored", ignored_json(d->ignored)}})
                            .c_str());
  } else if (stat_only) {
    // What sync holds back is marked, with the reason (the gate's).
    for (const auto& c : d->changes)
      std::printf("%c %s%s\n", c.kind, sys::display(c.path).c_str(),
                  c.held.empty() ? "" : ("\t# held back by sync: " + c.held).c_str());
  } else if (!::isatty(1)) {
    std::fwrite(d->patch.data(), 1, d->patch.size(), stdout);  // for git apply: as it is
  } else {
    // On a terminal the lines that name paths (git's headers) go through the printer; the
    // content is shown as `git diff` shows it.
    for (std::size_t at = 0; at < d->patch.size();) {
      std::size_t end = d->patch.find('\n', at);
      end = end == std::string::npos ? d->patch.size() : end + 1;
      const std::string_view line(d->patch.data() + at, end - at);
      bool names = false;
      for (std::string_view h : {"diff --git ", "--- ", "+++ ", "rename from ", "rename to ", "Binary files "})
        names = names || line.substr(0, h.size()) == h;
      if (names) std::printf("%s\n", sys::display(line.substr(0, line.size() - (line.back() == '\n'))).c_str());
      else std::fwrite(line.data(), 1, line.size(), stdout);
      at = end;
    }
  }
  return 0;
}

// The changes a sync held back (the host runs or trusts them), one line each.
void print_held(const std::vector<jail::Change>& held, const char* what, const std::string& name) {
  for (const auto& h : held)
    std::fprintf(stderr, "[paddock] %s: %s (%s): review it with paddock jail diff %s and copy it by hand\n", what,
                 sys::display(h.path).c_str(), h.held.c_str(), name.c_str());
}

struct SyncFlags {
  std::string name, patch, branch;
  bool apply = false;
  bool json = false;
  bool include_ignored = false;
};

// --json: one object on stdout whatever happened: what was written, what was held back (the host
// runs or trusts it) and, when the sync was refused, what was refused and why.
int do_sync(const SyncFlags& f) {
  int given = !f.patch.empty() + !f.branch.empty() + f.apply;
  if (given != 1) {
    std::fprintf(stderr, "paddock jail sync: give exactly one of --patch FILE, --to-branch BRANCH, --apply\n");
    return 2;
  }
  nlohmann::json out{{"jail", f.name},
                     {"mode", !f.patch.empty() ? "patch" : !f.branch.empty() ? "branch" : "apply"},
                     {"written", nlohmann::json::array()},
                     {"held", nlohmann::json::array()},
                     {"refused", nlohmann::json::array()},
                     {"left_behind", nlohmann::json::array()},
                     {"error", nullptr}};
  auto failed = [&](const Error& e, int code) {
    if (f.json) {
      out["error"] = e.describe();
      std::printf("%s\n", dump(out).c_str());
    }
    print_error(e);
    return code;
  };
  const jail::Ignored ignored = f.include_ignored ? jail::Ignored::Include : jail::Ignored::LeaveOut;
  jail::SyncTo to;
  if (!f.patch.empty()) {
    if (auto parts = sys::split_file_path(f.patch); !parts)
      return failed(make_error(parts.error().message, "--patch " + f.patch), 2);
    to = {jail::SyncTo::Kind::Patch, f.patch};
  } else if (!f.branch.empty()) {
    to = {jail::SyncTo::Kind::Branch, f.branch};
  }
  auto st = store();
  if (!st) return failed(st.error(), 1);
  std::vector<std::string> refused;
  auto done = jail::sync(*st, f.name, to, ignored, &refused);
  for (const auto& p : refused) out["refused"].push_back(p);
  if (!done) return failed(done.error(), 1);
  print_ignored(done->ignored);
  out["ignored"] = ignored_json(done->ignored);
  if (to.kind == jail::SyncTo::Kind::Patch) {
    print_held(done->held, "left out of the patch", f.name);
    std::fprintf(stderr, "[paddock] %zu change(s) of jail %s written to %s\n", done->written.size(), f.name.c_str(),
                 f.patch.c_str());
    out["written"] = changes_json(done->written);
    out["held"] = changes_json(done->held);
    out["patch"] = f.patch;
    if (f.json) std::printf("%s\n", dump(out).c_str());
    return 0;
  }
  if (to.kind == jail::SyncTo::Kind::Branch) {
    print_held(done->held, "not in the branch", f.name);
    std::fprintf(stderr, "[paddock] jail %s published as branch %s (%s) in %s\n", f.name.c_str(), f.branch.c_str(),
                 done->commit.substr(0, 12).c_str(), done->source.c_str());
    out["branch"] = f.branch;
    out["commit"] = done->commit;
    out["held"] = changes_json(done->held);
    if (f.json) std::printf("%s\n", dump(out).c_str());
    return 0;
  }
  out["written"] = changes_json(done->applied);
  out["held"] = changes_json(done->held);
  for (const LeftBehind& l : done->left_behind)
    out["left_behind"].push_back({{"path", l.path}, {"what", l.what}, {"action", l.action}});
  if (f.json) {
    std::printf("%s\n", dump(out).c_str());
  } else {
    for (const auto& c : done->applied) std::printf("%c %s\n", c.kind, sys::display(c.path).c_str());
  }
  print_held(done->held, "not applied", f.name);
  print_left_behind(done->left_behind);
  std::fprintf(stderr, "[paddock] %zu change(s) of jail %s applied to %s\n", done->applied.size(), f.name.c_str(),
               done->source.c_str());
  return 0;
}

// ---- prune ----------------------------------------------------------------------------------

struct PruneFlags {
  std::string older_than, max_size;
  bool dry_run = false;
};

int do_prune(const PruneFlags& f) {
  if (f.older_than.empty() && f.max_size.empty()) {
    std::fprintf(stderr, "paddock jail prune: give --older-than AGE and/or --max-size SIZE\n");
    return 2;
  }
  std::optional<std::chrono::milliseconds> age;
  std::optional<std::uint64_t> cap;
  if (!f.older_than.empty()) {
    auto a = parse_duration(f.older_than);
    if (!a) return print_error(make_error(a.error().message, "--older-than " + f.older_than)), 2;
    age = *a;
  }
  if (!f.max_size.empty()) {
    auto s = parse_size(f.max_size);
    if (!s) return print_error(make_error(s.error().message, "--max-size " + f.max_size)), 2;
    cap = *s;
  }
  auto st = store();
  if (!st) return print_error(st.error()), 1;
  jail::PruneOptions o;
  o.older_than = age;
  o.max_total = cap;
  o.dry_run = f.dry_run;
  auto pruned = jail::prune(*st, o);
  if (!pruned) return print_error(pruned.error()), 1;
  for (const Error& e : pruned->unmeasured) print_error(e);
  int rc = 0;
  for (const jail::PruneStep& step : pruned->steps) {
    if (step.refused) {
      print_error(*step.refused);
      rc = 1;
      continue;
    }
    std::fprintf(stderr, "[paddock] %s jail %s (%s, last used %s)\n", f.dry_run ? "would remove" : "removing",
                 step.jail.name.c_str(), format_size(step.size_bytes).c_str(), when(step.jail.last_used).c_str());
    if (step.remove_error) {
      print_error(*step.remove_error);
      rc = 1;
    }
  }
  std::fprintf(stderr, "[paddock] %d jail(s) %s\n", pruned->removed, f.dry_run ? "would be removed" : "removed");
  return rc;
}

}  // namespace

void register_jail(CLI::App& app) {
  auto* jail = app.add_subcommand("jail", "Persistent jails: a named workspace and HOME kept between runs");
  jail->require_subcommand(1);

  auto cf = std::make_shared<CreateFlags>();
  auto* create = jail->add_subcommand("create", "Make a jail");
  values(create->add_option("name", cf->name, "The jail's name")->required(), ValueKind::Text, "NAME");
  one_of(create->add_option("--workspace", cf->workspace, "How the workspace is made (docs/jails.md)"),
         {"host", "copy", "overlay", "worktree"});
  one_of(create->add_option("--home", cf->home, "HOME kept between runs (stable) or fresh each run (temporary)"),
         {"stable", "temporary"});
  values(create->add_option("--profile", cf->profile, "The profile its runs use (default: default)"),
         ValueKind::Profile, "NAME|FILE");
  values(create->add_option("--source", cf->source, "The directory the workspace is made from (default: .)"),
         ValueKind::Dir, "DIR");
  add_backend_option(create, cf->backend, "The backend its runs use (docs/jails.md)");
  values(create->add_option("--max-size", cf->max_size, "Refuse to run in the jail once it uses more than SIZE"),
         ValueKind::Text, "SIZE");
  create->callback([cf] { set_exit_code(do_create(*cf)); });

  auto jail_name = [](CLI::App* cmd, std::string& var) {
    values(cmd->add_option("name", var, "The jail's name")->required(), ValueKind::Jail, "JAIL");
  };

  for (bool enter : {false, true}) {
    auto ef = std::make_shared<ExecFlags>();
    auto* ex = jail->add_subcommand(enter ? "enter" : "exec",
                                    enter ? "An interactive shell in a jail" : "Run a command in a jail");
    jail_name(ex, ef->name);
    add_run_flags(ex, ef->run);
    if (!enter) {
      values(ex->add_option("command", ef->run.command, "The command and its arguments (after --)"),
             ValueKind::Command, "COMMAND");
    }
    ex->callback([ef, enter] {
      if (const auto* after = command_after_dashes())
        ef->run.command.insert(ef->run.command.end(), after->begin(), after->end());
      if (!enter && ef->run.command.empty()) {
        std::fprintf(stderr, "paddock jail exec: no command given (usage: paddock jail exec NAME -- COMMAND...)\n");
        set_exit_code(2);
        return;
      }
      set_exit_code(do_exec(*ef, enter));
    });
  }

  auto json = std::make_shared<bool>(false);
  auto* list = jail->add_subcommand("list", "List the jails");
  list->add_flag("--json", *json, "As JSON (runtime.json of each)");
  list->callback([json] { set_exit_code(do_list(*json)); });

  auto name = std::make_shared<std::string>();
  auto show_json = std::make_shared<bool>(false);
  auto* show = jail->add_subcommand("show", "Show a jail: its workspace, HOME, profile, times and size");
  jail_name(show, *name);
  show->add_flag("--json", *show_json, "As JSON (its runtime.json, with size_bytes)");
  show->callback([name, show_json] { set_exit_code(do_show(*name, *show_json)); });

  auto rm_name = std::make_shared<std::string>();
  auto rm_force = std::make_shared<bool>(false);
  auto* rm = jail->add_subcommand("rm", "Remove a jail (its workspace and HOME)");
  jail_name(rm, *rm_name);
  rm->add_flag("--force", *rm_force, "Remove it even when its workspace holds changes not synced to the source");
  rm->callback([rm_name, rm_force] { set_exit_code(do_rm(*rm_name, *rm_force)); });

  auto diff_name = std::make_shared<std::string>();
  auto diff_stat = std::make_shared<bool>(false);
  auto diff_json = std::make_shared<bool>(false);
  auto* diff = jail->add_subcommand("diff", "What a jail changed against its source (a patch)");
  jail_name(diff, *diff_name);
  diff->add_flag("--name-status", *diff_stat, "Only the changed paths (A added, M modified, D deleted)");
  diff->add_flag("--json", *diff_json, "With --name-status: as JSON");
  auto diff_ignored = std::make_shared<bool>(false);
  diff->add_flag("--include-ignored", *diff_ignored, "Include files the source's ignore rules leave out (.gitignore)");
  diff->callback([diff_name, diff_stat, diff_json, diff_ignored] {
    set_exit_code(do_diff(*diff_name, *diff_stat, *diff_json, *diff_ignored));
  });

  auto sf = std::make_shared<SyncFlags>();
  auto* sync = jail->add_subcommand("sync", "Publish a jail's changes");
  jail_name(sync, sf->name);
  values(sync->add_option("--patch", sf->patch, "Write them as a patch to FILE"), ValueKind::File, "FILE");
  values(sync->add_option("--to-branch", sf->branch, "Commit them to a new branch of the source repository"),
         ValueKind::Text, "BRANCH");
  sync->add_flag("--apply", sf->apply, "Apply them to the source's files (refused if those changed meanwhile)");
  sync->add_flag("--json", sf->json, "Say what was written, held back and refused as JSON on stdout");
  sync->add_flag("--include-ignored", sf->include_ignored,
                 "Include files the source's ignore rules leave out (.gitignore)");
  sync->callback([sf] { set_exit_code(do_sync(*sf)); });

  auto pf = std::make_shared<PruneFlags>();
  auto* prune = jail->add_subcommand("prune", "Remove jails not used for a while, or the oldest over a total size");
  values(prune->add_option("--older-than", pf->older_than, "Remove jails last used longer ago than DURATION (14d, 12h)"),
         ValueKind::Text, "DURATION");
  values(prune->add_option("--max-size", pf->max_size, "Remove least recently used jails until all use at most SIZE"),
         ValueKind::Text, "SIZE");
  prune->add_flag("--dry-run", pf->dry_run, "Say what would be removed");
  prune->callback([pf] { set_exit_code(do_prune(*pf)); });
}

}  // namespace paddock::cli
