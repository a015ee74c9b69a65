#include "mcp/fleet_metrics.h"

namespace paddock::mcp {

const char* call_outcome(const ExecOutcome* o) {
  if (!o) return "error";
  if (o->status == ExecOutcome::Status::Failed) return "failed";
  if (o->cancelled) return "cancelled";
  if (o->timed_out) return "timeout";
  if (o->oom) return "oom";
  if (o->exit_code != 0) return "exit_nonzero";
  return "ok";
}

FleetMetrics::FleetMetrics(std::string version)
    : calls_(reg_.counter("paddock_mcp_calls_total",
                          "Tool calls that ran code, by environment and outcome (ok, exit_nonzero, "
                          "timeout, oom, cancelled, failed: no sandbox, error: nothing ran).",
                          {"environment", "outcome"})),
      duration_(reg_.histogram("paddock_mcp_call_duration_seconds",
                               "Time from a call reaching a worker thread to its result, by environment.",
                               {"environment"},
                               {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60})),
      in_flight_(reg_.gauge("paddock_mcp_calls_in_flight", "Tool calls running code now.")),
      queued_(reg_.gauge("paddock_mcp_calls_queued", "Tool calls waiting for a worker thread (max_concurrency).")),
      starts_(reg_.counter("paddock_mcp_sandbox_starts_total",
                           "Sandboxes that served a call, from the warm pool or started for it (cold).",
                           {"environment", "pool"})),
      pool_ready_(reg_.gauge("paddock_mcp_warm_pool_ready", "Warm sandboxes ready now.", {"environment"})),
      pool_target_(reg_.gauge("paddock_mcp_warm_pool_target", "Warm sandboxes kept ready when idle.", {"environment"})),
      pool_failing_(reg_.gauge("paddock_mcp_warm_pool_failing",
                               "1 when the last refill of this pool failed (it backs off).", {"environment"})),
      refusals_(reg_.counter("paddock_mcp_refusals_total",
                             "Requests refused before anything ran, by reason (unauthorized, scope, "
                             "concurrency, rate, draining, connections) and token name.",
                             {"reason", "token"})),
      token_calls_(reg_.counter("paddock_mcp_token_calls_total", "Tool calls admitted, by token name.", {"token"})),
      http_sessions_(reg_.gauge("paddock_mcp_http_sessions", "Open Streamable HTTP sessions (Mcp-Session-Id).")),
      code_sessions_(reg_.gauge("paddock_mcp_code_sessions", "Open code sessions (execute session=new).")),
      ready_(reg_.gauge("paddock_mcp_ready", "1 when /readyz says ready, by reason.", {"reason"})),
      info_(reg_.gauge("paddock_mcp_build_info", "paddock's version.", {"version"})) {
  info_.set({std::move(version)}, 1);
  in_flight_.set({}, 0);
  queued_.set({}, 0);
  for (const char* r : {"unauthorized", "scope", "concurrency", "rate", "draining", "connections"})
    refusals_.touch({r, ""});
  reg_.on_scrape([this] {
    if (sources_.load) queued_.set({}, static_cast<double>(sources_.load().queued));
    if (sources_.pools) {
      pool_ready_.clear();
      pool_target_.clear();
      pool_failing_.clear();
      for (const auto& p : sources_.pools()) {
        pool_ready_.set({p.environment}, p.ready);
        pool_target_.set({p.environment}, p.target);
        pool_failing_.set({p.environment}, p.failing ? 1 : 0);
      }
    }
    if (sources_.http_sessions) http_sessions_.set({}, static_cast<double>(sources_.http_sessions()));
    if (sources_.code_sessions) code_sessions_.set({}, static_cast<double>(sources_.code_sessions()));
    if (sources_.readiness) {
      auto v = sources_.readiness();
      ready_.clear();
      ready_.set({v.reason}, v.ready ? 1 : 0);
    }
  });
}

void FleetMetrics::set_sources(Sources sources) { sources_ = std::move(sources); }

void FleetMetrics::call_started(const std::string& environment) {
  (void)environment;
  in_flight_.add({}, 1);
}

void FleetMetrics::call_finished(const std::string& environment, const ExecOutcome* outcome,
                                 bool in_session, std::chrono::duration<double> elapsed) {
  in_flight_.add({}, -1);
  calls_.add({environment, call_outcome(outcome)});
  duration_.observe({environment}, elapsed.count());
  if (outcome && outcome->status == ExecOutcome::Status::Ran && !in_session)
    starts_.add({environment, outcome->warm ? "warm" : "cold"});
}

void FleetMetrics::refused(const std::string& reason, const std::string& token) {
  refusals_.add({reason, token});
}

void FleetMetrics::admitted(const std::string& token) { token_calls_.add({token}); }

std::string FleetMetrics::render() { return reg_.render(); }

}  // namespace paddock::mcp
