#include "cli/footer.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "supervisor/denial.h"
#include "sys/display.h"

namespace paddock::cli {
namespace {

std::string tilde(const Policy& p, const std::string& path) {
  if (!p.home.empty() && (path == p.home || path.rfind(p.home + "/", 0) == 0))
    return "~" + path.substr(p.home.size());
  return path;
}

// The command never started (exec failed) and nothing else happened: say what failed, in two
// lines, instead of the policy (nothing was refused; the policy is not the story).
std::vector<std::string> exec_failure_lines(const RunResult& r) {
  const std::string& cmd = r.setup_detail;
  if (r.status == RunResult::Status::NotFound) {
    if (cmd.find('/') == std::string::npos) {
      return {"`" + cmd + "` was not found in the sandbox's PATH (exit code 127): " + r.search_path,
              "Nothing was refused; the command never started. A program elsewhere needs --read DIR "
              "(or --env PATH=...)."};
    }
    return {"`" + cmd + "` does not exist in the sandbox (exit code 127); the command never started.",
            "Explain a path: paddock why --path " + cmd + " --op exec"};
  }
  return {"`" + cmd + "` could not be executed in the sandbox: " +
              (r.setup_errno ? std::string(std::strerror(r.setup_errno)) : std::string("failed")) +
              " (exit code 126); the command never started.",
          "Explain it: paddock why --path " + cmd + " --op exec"};
}

// What a shell's own exit code says, for a command that ran a shell.
std::string exit_code_meaning(const RunResult& r) {
  if (r.exit_code == 127) return " (a shell's \"command not found\"; the sandbox's PATH: " + r.search_path + ")";
  if (r.exit_code == 126) return " (a shell's \"cannot execute\")";
  return "";
}

}  // namespace

std::vector<std::string> denial_lines(const std::vector<Denial>& denials) {
  // The egress filter's refusals have their own lines (`network: blocked ...`, from extra).
  constexpr std::size_t kShown = 10;
  std::vector<std::string> out;
  std::size_t more = 0;
  for (const Denial& d : denials) {
    if (d.layer == Denial::Layer::Egress) continue;
    if (out.size() == kShown) {
      ++more;
      continue;
    }
    out.push_back("  " + supervisor::describe(d));
  }
  if (more > 0) out.push_back("  " + std::to_string(more) + " more refusals; --report FILE or --denials FILE lists them");
  return out;
}

std::vector<std::string> left_behind_lines(const std::vector<LeftBehind>& left) {
  std::vector<std::string> out;
  if (left.empty()) return out;
  out.push_back("WARNING: this run left behind " + std::to_string(left.size()) +
                (left.size() == 1 ? " thing" : " things") + " the host may run or trust later:");
  for (const LeftBehind& l : left) {
    out.push_back("  " + l.path);
    out.push_back("      " + l.what);
    out.push_back("      " + l.action);
  }
  return out;
}

void print_left_behind(const std::vector<LeftBehind>& left) { print_prefixed(left_behind_lines(left)); }

std::vector<std::string> discarded_lines(const DiscardedWrites& d, const Policy& p) {
  if (!d.recorded || d.entries == 0) return {};
  const std::string at_least = d.complete ? "" : "at least ";
  std::string names;
  for (const std::string& path : d.paths) names += (names.empty() ? "" : ", ") + tilde(p, path);
  if (d.tops > d.paths.size()) names += ", and " + std::to_string(d.tops - d.paths.size()) + " more";
  return {"discarded at exit: " + at_least + std::to_string(d.entries) + (d.entries == 1 ? " entry" : " entries") +
              " (" + at_least + std::to_string(d.bytes) + " bytes) written outside every host-backed path, in the "
              "sandbox's fresh " + tilde(p, p.home) + ": " + names,
          "  to keep such files, allow their directory (--allow DIR); to make such writes fail instead, "
          "--refuse-discarded-writes"};
}

std::vector<std::string> footer_lines(const RunResult& r, const Policy& p, const std::vector<std::string>& extra,
                                      const std::string& home_from) {
  std::vector<std::string> out;
  bool limit_hit = r.timed_out || r.oom || !extra.empty();
  if (r.status == RunResult::Status::Signaled && !limit_hit) return out;  // not a sandbox issue
  if (r.status == RunResult::Status::Exited && r.exit_code == 0 && !limit_hit) return out;
  if ((r.status == RunResult::Status::NotFound || r.status == RunResult::Status::NotExecutable) && !limit_hit)
    return exec_failure_lines(r);
  switch (r.status) {
    case RunResult::Status::Exited:
      if (r.exit_code == 0) {
        out.push_back("Command exited with code 0, but the sandbox limited it:");
        break;
      }
      // Exact when paddock recorded refusals; a guess only when it recorded none.
      out.push_back("Command exited with code " + std::to_string(r.exit_code) + exit_code_meaning(r) +
                    (r.denials.empty() ? ". This may be due to sandbox restrictions."
                                       : ". During the run the sandbox refused:"));
      break;
    case RunResult::Status::Signaled:
      out.push_back("Command was killed by signal " + std::to_string(r.signal) + ".");
      break;
    default:
      out.push_back(r.failure_message());
      break;
  }
  for (const auto& d : denial_lines(r.denials)) out.push_back(d);
  for (const auto& e : extra) out.push_back(e);
  out.push_back("");
  out.push_back("Sandbox policy:");
  out.push_back("  Paths:");
  for (const PathRule& rule : p.paths) {
    if (rule.origin.kind == Origin::Kind::BuiltIn) continue;
    out.push_back("    " + tilde(p, rule.path) + " (" + std::string(to_string(rule.access)) + ")");
  }
  if (r.isolation_gaps.empty()) {
    out.push_back("    system directories (read-only), " + tilde(p, p.home) +
                  (home_from.empty() ? " (fresh, empty)" : " (" + home_from + ", kept between runs)") + ", /tmp (private)");
  } else {
    out.push_back("    system directories (read-only), HOME and TMPDIR (fresh, empty, elsewhere: " + tilde(p, p.home) +
                  " and /tmp are the host's)");
  }
  if (!p.denied.empty()) {
    // The user's own secrets first: they are what people look for.
    std::vector<std::string> names;
    for (const auto& den : p.denied)
      if (tilde(p, den.path)[0] == '~') names.push_back(tilde(p, den.path));
    for (const auto& den : p.denied)
      if (tilde(p, den.path)[0] != '~') names.push_back(den.path);
    std::string d;
    for (std::size_t i = 0; i < names.size() && i < 4; ++i) d += (i ? ", " : "") + names[i];
    if (names.size() > 4) d += ", ...";
    out.push_back("  Hidden (sensitive): " + d);
  }
  // Files the host runs later, held read-only inside writable paths: a write to one fails with
  // EROFS, and replacing one (git config's lock and rename, an editor's save) with EBUSY, which
  // says nothing about why (issue 30 item 6).
  std::vector<std::string> held;
  for (const ProtectedPath& pp : p.protected_paths) {
    if (!pp.exists) continue;
    held.push_back(pp.path.rfind(p.cwd + "/", 0) == 0 ? pp.path.substr(p.cwd.size() + 1) : tilde(p, pp.path));
  }
  if (!held.empty()) {
    std::string h;
    for (std::size_t i = 0; i < held.size() && i < 4; ++i) h += (i ? ", " : "") + held[i];
    if (held.size() > 4) h += ", ...";
    out.push_back("  Held read-only (the host runs them later): " + h);
    out.push_back("    writing one fails with \"Read-only file system\", replacing it (git config, an editor's save) "
                  "with \"Device or resource busy\"; --allow PATH on that exact path lifts it");
  }
  out.push_back(std::string("  Network: ") +
                (p.network.mode == NetMode::Off ? "blocked" : p.network.mode == NetMode::Host ? "allowed" : "filtered"));
  if (!r.isolation_gaps.empty()) {
    // The names only: the warnings above this footer give each one's consequence.
    std::string names;
    for (const IsolationGap& g : r.isolation_gaps) names += (names.empty() ? "" : "; ") + g.name;
    out.push_back("  Isolation: Landlock + seccomp only (no user namespaces), so: " + names);
  }
  out.push_back("");
  out.push_back("To grant additional access, re-run with:");
  out.push_back("  --allow <path>     read+write access");
  out.push_back("  --read <path>      read-only access");
  out.push_back("  --write <path>     write-only access");
  if (p.network.mode != NetMode::Host) {
    out.push_back("  --allow-domain <host>  network access to one host (HOST[:PORT], *.domain)");
    out.push_back("  --allow-net        network access");
  }
  out.push_back("Explain a path: paddock why --path <path> --op read|write|exec");
  return out;
}

void print_error(const Error& e) {
  std::fprintf(stderr, "paddock: %s\n", sys::display(e.describe()).c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "paddock: hint: %s\n", sys::display(e.hint).c_str());
}

void print_prefixed(const std::vector<std::string>& lines) {
  std::string buf;
  // The one printer (sys::display): these lines carry names the sandbox chose (what it left
  // behind, files it wrote, labels), and an escape sequence in one could rewrite the lines around it.
  for (const auto& l : lines) buf += "[paddock]" + (l.empty() ? std::string() : " " + sys::display(l)) + "\n";
  if (write(2, buf.data(), buf.size()) < 0) {
  }
}

}  // namespace paddock::cli
