// paddock mcp: an MCP server whose execute tool runs code in sandboxes (docs/mcp.md).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "mcp/config.h"
#include "mcp/fleet_metrics.h"
#include "mcp/http_transport.h"
#include "mcp/readiness.h"
#include "mcp/sandbox_executor.h"
#include "mcp/server.h"
#include "mcp/stdio_transport.h"
#include "mcp/tokens.h"

namespace paddock::cli {
namespace {

struct McpFlags {
  std::string config;
  std::string project;
  std::string http;
  std::string token_file;
  bool danger_http_no_auth = false;
  bool no_warm = false;
  std::vector<std::string> allowed_origins;
  unsigned drain_seconds = 30;
  unsigned ready_empty_pool_seconds = 10;
};

void print_error(const Error& e) {
  std::fprintf(stderr, "paddock mcp: %s\n", e.describe().c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "paddock mcp: hint: %s\n", e.hint.c_str());
}

int do_mcp(const McpFlags& f) {
  auto config = f.config.empty() ? Result<mcp::Config>(mcp::builtin_config())
                                 : mcp::load_config(f.config);
  if (!config) {
    print_error(config.error());
    return 2;
  }
  std::optional<mcp::HttpAddress> http;
  if (!f.http.empty()) {
    auto addr = mcp::parse_http_address(f.http);
    if (!addr) {
      print_error(addr.error());
      return 2;
    }
    http = *addr;
  } else if (!f.token_file.empty() || f.danger_http_no_auth) {
    std::fprintf(stderr, "paddock mcp: --token-file and --danger-http-no-auth need --http\n");
    return 2;
  }
  mcp::TokenSet tokens;
  if (http) {
    if (f.danger_http_no_auth && !f.token_file.empty()) {
      std::fprintf(stderr, "paddock mcp: --token-file and --danger-http-no-auth exclude each other\n");
      return 2;
    }
    if (!f.token_file.empty()) {
      auto t = mcp::read_token_file(f.token_file);
      if (!t) {
        print_error(t.error());
        return 2;
      }
      tokens = std::move(*t);
      std::string names;
      for (const auto& tok : tokens.tokens()) names += (names.empty() ? "" : ", ") + tok.name;
      std::fprintf(stderr, "paddock mcp: %zu token(s) from %s: %s\n", tokens.tokens().size(),
                   f.token_file.c_str(), names.c_str());
    } else if (!http->unix_path.empty()) {
      // The socket file is 0600 and peers are checked by uid: the file system is the auth.
    } else if (!f.danger_http_no_auth) {
      auto t = mcp::generate_token();
      if (!t) {
        print_error(t.error());
        return 1;
      }
      tokens = mcp::TokenSet::single(*t);
      std::fprintf(stderr, "paddock mcp: bearer token (send \"Authorization: Bearer <token>\"): %s\n",
                   t->c_str());
    } else {
      std::fprintf(stderr, "paddock mcp: WARNING: --danger-http-no-auth: any local user or sandbox "
                           "that can reach the port can run code as you\n");
    }
  }

  // Termination signals are taken by one thread (below), not by whichever thread they hit.
  sigset_t sigs;
  sigemptyset(&sigs);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sigs, s);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  mcp::SandboxExecutorOptions eopts;
  eopts.project = f.project;
  eopts.warm = !f.no_warm;
  auto executor = mcp::make_sandbox_executor(*config, eopts);
  if (!executor) {
    print_error(executor.error());
    return 2;
  }
  auto metrics = std::make_shared<mcp::FleetMetrics>(PADDOCK_VERSION);
  mcp::ServerOptions sopts;
  sopts.version = PADDOCK_VERSION;
  sopts.project_mounted = !f.project.empty();
  sopts.observer = metrics;
  auto server = std::make_unique<mcp::Server>(*config, *executor, sopts);
  (*executor)->start_background();

  // HTTP: listening before the signal thread starts, so that it can remove a unix socket.
  std::unique_ptr<mcp::HttpServer> http_server;
  if (http) {
    mcp::HttpOptions hopts;
    hopts.address = *http;
    hopts.allowed_origins = f.allowed_origins;
    hopts.tokens = tokens;
    auto readiness = std::make_shared<mcp::Readiness>(std::chrono::seconds(f.ready_empty_pool_seconds));
    std::shared_ptr<mcp::Executor> exec = *executor;
    hopts.readiness = [readiness, exec](bool draining) {
      return readiness->check(draining, exec->pool_states(), mcp::Readiness::Clock::now());
    };
    hopts.metrics = [metrics] { return metrics->render(); };
    hopts.observer = metrics;
    http_server = std::make_unique<mcp::HttpServer>(*server, hopts);
    mcp::HttpServer* hs = http_server.get();
    mcp::Server* sv = server.get();
    metrics->set_sources({[sv] { return sv->load(); }, [exec] { return exec->pool_states(); },
                          [hs] { return hs->session_count(); }, [sv] { return sv->open_sessions(); },
                          [readiness, exec, hs] {
                            return readiness->check(hs->draining(), exec->pool_states(),
                                                    mcp::Readiness::Clock::now());
                          }});
    if (auto r = http_server->listen(); !r) {
      print_error(r.error());
      return 1;
    }
    std::fprintf(stderr, "paddock mcp: serving MCP (Streamable HTTP) at %s\n", http_server->where().c_str());
  }

  std::thread([&server, &executor, &http_server, sigs, drain = f.drain_seconds] {
    int sig = 0;
    sigwait(&sigs, &sig);
    if (http_server && sig == SIGTERM) {
      // A fleet's stop: drain (docs/scale.md). A second signal stops at once.
      std::fprintf(stderr, "paddock mcp: SIGTERM: draining (up to %u s)\n", drain);
      std::thread([&http_server, drain] {
        bool all = http_server->drain(std::chrono::seconds(drain));
        std::fprintf(stderr, "paddock mcp: drained (%s)\n",
                     all ? "every call finished" : "deadline passed: the rest were cancelled");
      }).detach();
      sigwait(&sigs, &sig);
    }
    if (http_server) http_server->remove_socket();
    // Kill what runs, remove workspaces, then leave at once: the transport may be blocked in a
    // read that nothing else would end.
    server->cancel_all();
    server->wait_idle();
    (*executor)->shutdown();
    executor->reset();
    std::_Exit(128 + sig);
  }).detach();

  int rc = 0;
  if (http_server) {
    http_server->serve();
  } else {
    std::fprintf(stderr, "paddock mcp: serving MCP on stdio (%zu environments, config: %s)\n",
                 config->environments.size(), config->source.c_str());
    mcp::serve_stdio(*server, STDIN_FILENO, STDOUT_FILENO);
  }
  server.reset();
  (*executor)->shutdown();
  return rc;
}

}  // namespace

void register_mcp(CLI::App& app) {
  auto flags = std::make_shared<McpFlags>();
  auto* cmd = app.add_subcommand("mcp", "MCP server whose execute tool runs code in sandboxes");
  values(cmd->add_option("--config", flags->config, "TOML file with environments and limits"), ValueKind::File, "FILE");
  values(cmd->add_option("--project", flags->project, "directory the code may read (never write)"), ValueKind::Dir,
         "DIR");
  values(cmd->add_option("--http", flags->http,
                         "serve Streamable HTTP on ADDR:PORT (e.g. 127.0.0.1:8765), or on unix:PATH (a socket "
                         "only your user can use; no token needed), instead of stdio"),
         ValueKind::Text, "ADDR:PORT");
  values(cmd->add_option("--token-file", flags->token_file,
                         "HTTP: read the bearer tokens from this file (mode 0600, yours): one token, or "
                         "lines NAME TOKEN [max_concurrency=N] [calls_per_minute=N] [scope=mcp,metrics]"),
         ValueKind::File, "FILE");
  cmd->add_flag("--danger-http-no-auth", flags->danger_http_no_auth,
                "HTTP: accept requests without a token (loopback addresses only)");
  values(cmd->add_option("--allow-origin", flags->allowed_origins,
                         "HTTP: an extra Origin to accept (localhost origins always are)"),
         ValueKind::Text, "ORIGIN");
  cmd->add_flag("--no-warm", flags->no_warm, "start every sandbox on demand (no warm pool)");
  values(cmd->add_option("--drain-seconds", flags->drain_seconds,
                         "HTTP: on SIGTERM, let calls in flight finish for up to this long (default 30)"),
         ValueKind::Text, "N");
  values(cmd->add_option("--ready-empty-pool-seconds", flags->ready_empty_pool_seconds,
                         "HTTP: /readyz turns 503 once the warm pools stayed empty this long (default 10; 0: never)"),
         ValueKind::Text, "N");
  cmd->callback([flags] { set_exit_code(do_mcp(*flags)); });
}

}  // namespace paddock::cli
