// paddock mcp's metrics for a fleet (GET /metrics, Prometheus text format; docs/scale.md):
// tool calls by environment and outcome, their latency, calls in flight and queued, warm pools,
// sandbox starts warm or cold, refusals by reason, calls per token, sessions, readiness. Fed by
// the server (CallObserver) and the HTTP transport (HttpObserver); gauges are sampled from the
// sources at each scrape.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "mcp/http_transport.h"
#include "mcp/prometheus.h"
#include "mcp/server.h"

namespace paddock::mcp {

// "ok", "exit_nonzero", "timeout", "oom", "cancelled", "failed" (no sandbox), for a call that
// reached the executor; "error" when nothing ran.
const char* call_outcome(const ExecOutcome* outcome);

class FleetMetrics : public CallObserver, public HttpObserver {
 public:
  struct Sources {
    std::function<Server::Load()> load;
    std::function<std::vector<PoolState>()> pools;
    std::function<std::size_t()> http_sessions;
    std::function<std::size_t()> code_sessions;
    std::function<Readiness::Verdict()> readiness;
  };
  explicit FleetMetrics(std::string version);
  void set_sources(Sources sources);  // before the first scrape

  void call_started(const std::string& environment) override;
  void call_finished(const std::string& environment, const ExecOutcome* outcome, bool in_session,
                     std::chrono::duration<double> elapsed) override;
  void refused(const std::string& reason, const std::string& token) override;
  void admitted(const std::string& token) override;

  std::string render();

 private:
  prometheus::Registry reg_;
  prometheus::Family& calls_;
  prometheus::Family& duration_;
  prometheus::Family& in_flight_;
  prometheus::Family& queued_;
  prometheus::Family& starts_;
  prometheus::Family& pool_ready_;
  prometheus::Family& pool_target_;
  prometheus::Family& pool_failing_;
  prometheus::Family& refusals_;
  prometheus::Family& token_calls_;
  prometheus::Family& http_sessions_;
  prometheus::Family& code_sessions_;
  prometheus::Family& ready_;
  prometheus::Family& info_;
  Sources sources_;
};

}  // namespace paddock::mcp
