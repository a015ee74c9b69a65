// paddock host: an agent as its own unix user on a shared machine (src/host/, docs/host.md).
//   install [--dry-run] --config FILE   check [--config FILE]   uninstall [--dry-run] [--keep-state]
//   explain [AGENT]                     wrap / runner (reached through the wrapper and sudo only)
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/footer.h"
#include "host/config.h"
#include "host/install.h"
#include "host/runner.h"

namespace paddock::cli {
namespace {

void print_error(const char* who, const Error& e) {
  std::fprintf(stderr, "%s: %s\n", who, e.describe().c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "%s: hint: %s\n", who, e.hint.c_str());
}

}  // namespace

// `paddock host wrap|runner ...`: argv is taken as it is (no option parser: the shape is fixed,
// and sudo matched the runner's command line against exactly that shape).
int host_fixed_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::string verb = args.size() > 1 ? args[1] : "";
  auto fixed = host::parse_fixed_argv(args, verb);
  if (!fixed) {
    print_error("paddock host", fixed.error());
    return 2;
  }
  if (verb == "wrap") {
    auto cmd = host::wrapper_command(*fixed);
    if (!cmd) {
      print_error(fixed->agent.c_str(), cmd.error());
      return 126;
    }
    std::vector<char*> cargv;
    for (auto& a : *cmd) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execv(cargv[0], cargv.data());
    std::fprintf(stderr, "%s: cannot run %s: %s\n", fixed->agent.c_str(), cargv[0], std::strerror(errno));
    return 126;
  }
  auto prepared = host::prepare_runner(*fixed, host::caller_facts_from_process());
  if (!prepared) {
    print_error(fixed->agent.c_str(), prepared.error());
    return 126;
  }
  auto res = run(prepared->policy, prepared->options);
  if (!res) {
    print_error(fixed->agent.c_str(), res.error());
    return 125;
  }
  sigset_t pipe_sig;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);
  std::vector<std::string> warnings;
  for (const auto& w : res->warnings) warnings.push_back("warning: " + w);
  print_prefixed(warnings);
  print_left_behind(res->left_behind);
  std::string failure = res->failure_message();
  if (!failure.empty()) std::fprintf(stderr, "paddock: %s\n", failure.c_str());
  return res->shell_code();
}

void register_host(CLI::App& app) {
  auto* host = app.add_subcommand(
      "host", "Multi-user host mode: agents as their own unix user, reached through a wrapper (docs/host.md)");
  host->require_subcommand(1);
  host->footer(
      "Also: `paddock host wrap --config FILE AGENT -- ARGS` (what the generated wrapper runs) and `paddock host "
      "runner ...` (root, started by sudo from the wrapper only).");

  struct Flags {
    std::string config = host::kDefaultConfig;
    bool dry_run = false;
    bool keep_state = false;
    std::string manifest;
    std::string agent;
  };
  auto f = std::make_shared<Flags>();

  auto load = [f]() -> Result<host::HostConfig> { return host::load_host_config(f->config, *host::real_users()); };

  auto* install = host->add_subcommand("install", "Create the agent users, state dirs, wrappers and sudoers rules "
                                                  "(idempotent; --dry-run prints every change first)");
  values(install->add_option("--config", f->config, "host.toml (default /etc/paddock/host.toml)"), ValueKind::File, "FILE");
  install->add_flag("--dry-run", f->dry_run, "Print what would change, change nothing");
  install->callback([f, load] {
    auto cfg = load();
    if (!cfg) {
      print_error("paddock host install", cfg.error());
      set_exit_code(2);
      return;
    }
    host::InstallOptions o;
    o.dry_run = f->dry_run;
    if (auto r = host::install(*cfg, o); !r) {
      print_error("paddock host install", r.error());
      set_exit_code(1);
      return;
    }
    set_exit_code(0);
  });

  auto* check = host->add_subcommand("check", "Validate the config and the installed state (exit 1 on a failure)");
  values(check->add_option("--config", f->config, "host.toml (default /etc/paddock/host.toml)"), ValueKind::File, "FILE");
  check->callback([load] {
    auto cfg = load();
    if (!cfg) {
      print_error("paddock host check", cfg.error());
      set_exit_code(1);
      return;
    }
    int failed = 0;
    for (const auto& x : host::check(*cfg, *host::real_users())) {
      const char* tag = x.level == host::Finding::Level::Ok ? "ok  " : x.level == host::Finding::Level::Warn ? "warn" : "FAIL";
      if (x.level == host::Finding::Level::Fail) ++failed;
      std::printf("%s %s\n", tag, x.text.c_str());
    }
    std::printf("%s\n", failed == 0 ? "paddock host check: all good" : ("paddock host check: " + std::to_string(failed) + " failure(s)").c_str());
    set_exit_code(failed == 0 ? 0 : 1);
  });

  auto* uninstall = host->add_subcommand("uninstall", "Remove exactly what install created (from its manifest)");
  values(uninstall->add_option("--config", f->config, "host.toml, to find the manifest (default /etc/paddock/host.toml)"),
         ValueKind::File, "FILE");
  values(uninstall->add_option("--manifest", f->manifest, "The install manifest, when the config is gone"),
         ValueKind::File, "FILE");
  uninstall->add_flag("--dry-run", f->dry_run, "Print what would be removed, remove nothing");
  uninstall->add_flag("--keep-state", f->keep_state, "Keep the agents' state directories (sessions, logins)");
  uninstall->callback([f, load] {
    std::string manifest = f->manifest;
    if (manifest.empty()) {
      auto cfg = load();
      if (!cfg) {
        print_error("paddock host uninstall", cfg.error());
        std::fprintf(stderr, "paddock host uninstall: hint: --manifest FILE names the manifest without a config\n");
        set_exit_code(2);
        return;
      }
      manifest = cfg->manifest;
    }
    host::UninstallOptions o;
    o.dry_run = f->dry_run;
    o.keep_state = f->keep_state;
    if (auto r = host::uninstall(manifest, o); !r) {
      print_error("paddock host uninstall", r.error());
      set_exit_code(1);
      return;
    }
    set_exit_code(0);
  });

  auto* explain = host->add_subcommand("explain", "For you: your roots, config sources, settings and env, with precedence");
  values(explain->add_option("--config", f->config, "host.toml (default /etc/paddock/host.toml)"), ValueKind::File, "FILE");
  values(explain->add_option("agent", f->agent, "Only this agent"), ValueKind::Text, "AGENT");
  explain->callback([f, load] {
    auto cfg = load();
    if (!cfg) {
      print_error("paddock host explain", cfg.error());
      set_exit_code(2);
      return;
    }
    auto text = host::explain(*cfg, f->agent, *host::real_users());
    if (!text) {
      print_error("paddock host explain", text.error());
      set_exit_code(1);
      return;
    }
    std::fputs(text->c_str(), stdout);
    set_exit_code(0);
  });
}

}  // namespace paddock::cli
