// The HTTP transport's fleet side: /healthz and /readyz without a token, /metrics only for a
// token with the metrics scope, per-token limits (429), and graceful drain.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "mcp/fake_executor.h"
#include "mcp/fleet_metrics.h"
#include "mcp/http_test_client.h"
#include "mcp/http_transport.h"

namespace paddock::mcp {
namespace {

using namespace std::chrono_literals;

constexpr const char* kAlice = "alice-token-0123456789";
constexpr const char* kBob = "bob-token-0123456789ab";
constexpr const char* kProm = "prom-token-0123456789a";
constexpr const char* kInit =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

std::string execute(const std::string& code, double timeout = 5, int id = 2) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"execute","arguments":{"environment":"python","code":")" +
         code + R"(","timeout_seconds":)" + std::to_string(timeout) + "}}}";
}

class Fleet : public ::testing::Test {
 protected:
  explicit Fleet(std::string tokens_text =
                     std::string("alice ") + kAlice + " max_concurrency=1 calls_per_minute=3\n" +
                     "bob " + kBob + "\n" + "prom " + kProm + " scope=metrics\n") {
    Environment py;
    py.name = "python";
    py.command = {"/usr/bin/python3"};
    py.limits.timeout_seconds = 10;
    cfg.environments["python"] = py;
    ServerOptions so;
    so.observer = metrics;
    server = std::make_unique<Server>(cfg, fake, so);
    HttpOptions ho;
    ho.address = {"127.0.0.1", 0};
    auto t = parse_token_file(tokens_text, "tokens");
    EXPECT_TRUE(t.ok()) << t.error().describe();
    ho.tokens = *t;
    ho.metrics = [this] { return metrics->render(); };
    ho.observer = metrics;
    http = std::make_unique<HttpServer>(*server, ho);
    auto r = http->listen();
    EXPECT_TRUE(r.ok()) << r.error().describe();
    thread = std::thread([this] { http->serve(); });
  }
  ~Fleet() override {
    http->stop();
    thread.join();
  }

  HttpReply request(const std::string& method, const std::string& path, const std::string& token,
                    const std::string& body = "", const std::string& sid = "") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
    if (!sid.empty()) req += "Mcp-Session-Id: " + sid + "\r\n";
    if (method == "POST")
      req += "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return http_exchange(http->port(), req);
  }
  std::string initialize(const std::string& token) {
    auto r = request("POST", "/mcp", token, kInit);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.headers["mcp-session-id"];
  }
  void wait_sleeping(int n) { fake->wait_sleeping(n); }

  Config cfg;
  std::shared_ptr<FakeExecutor> fake = std::make_shared<FakeExecutor>();
  std::shared_ptr<FleetMetrics> metrics = std::make_shared<FleetMetrics>("test");
  std::unique_ptr<Server> server;
  std::unique_ptr<HttpServer> http;
  std::thread thread;
};

TEST_F(Fleet, HealthAndReadinessNeedNoTokenAndSayNothingElse) {
  auto h = request("GET", "/healthz", "");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.body, "ok\n");
  auto r = request("GET", "/readyz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ready\n");
  EXPECT_EQ(request("POST", "/healthz", "", "{}").status, 405);
  EXPECT_EQ(request("GET", "/readyz?verbose=1", "").body, "ready\n");
  EXPECT_EQ(fake->calls.load(), 0);
}

TEST_F(Fleet, MetricsOnlyWithTheMetricsScopeAndTheMetricsTokenRunsNothing) {
  EXPECT_EQ(request("GET", "/metrics", "").status, 401);
  EXPECT_EQ(request("GET", "/metrics", "wrong-token-0123456789").status, 401);
  auto denied = request("GET", "/metrics", kAlice);
  EXPECT_EQ(denied.status, 403) << "an MCP client's token does not read other clients' counts";
  EXPECT_EQ(request("POST", "/mcp", kProm, kInit).status, 403) << "the scraper's token runs no code";
  std::string sid = initialize(kBob);
  EXPECT_EQ(request("POST", "/mcp", kBob, execute("print:hi"), sid).status, 200);
  auto m = request("GET", "/metrics", kProm);
  ASSERT_EQ(m.status, 200);
  EXPECT_EQ(m.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(m.body.find("paddock_mcp_calls_total{environment=\"python\",outcome=\"ok\"} 1\n"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("paddock_mcp_token_calls_total{token=\"bob\"} 1\n"), std::string::npos);
  EXPECT_NE(m.body.find("paddock_mcp_refusals_total{reason=\"scope\",token=\"alice\"} 1\n"), std::string::npos);
  EXPECT_NE(m.body.find("paddock_mcp_refusals_total{reason=\"scope\",token=\"prom\"} 1\n"), std::string::npos);
  EXPECT_NE(m.body.find("paddock_mcp_refusals_total{reason=\"unauthorized\",token=\"\"} 2\n"), std::string::npos);
}

TEST_F(Fleet, ConcurrencyPerTokenRefusesTheGreedyAndServesTheOthers) {
  std::string a = initialize(kAlice), b = initialize(kBob);
  auto first = std::async(std::launch::async, [&] { return request("POST", "/mcp", kAlice, execute("sleep", 1), a); });
  wait_sleeping(1);
  auto second = request("POST", "/mcp", kAlice, execute("print:no", 5, 3), a);
  EXPECT_EQ(second.status, 429);
  EXPECT_EQ(second.headers["retry-after"], "1");
  EXPECT_NE(second.body.find("max_concurrency"), std::string::npos) << second.body;
  EXPECT_EQ(json::parse(second.body)["id"], 3);
  auto other = request("POST", "/mcp", kBob, execute("print:yes"), b);
  EXPECT_EQ(other.status, 200) << "bob is not starved by alice";
  EXPECT_EQ(first.get().status, 200);
  EXPECT_EQ(fake->calls.load(), 2) << "the refused call never reached the executor";
  // Pings and listings are not tool calls: never limited.
  EXPECT_EQ(request("POST", "/mcp", kAlice, R"({"jsonrpc":"2.0","id":9,"method":"ping"})", a).status, 200);
}

TEST_F(Fleet, CallsPerMinutePerToken) {
  std::string a = initialize(kAlice);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(request("POST", "/mcp", kAlice, execute("print:x"), a).status, 200);
  auto third = request("POST", "/mcp", kAlice, execute("print:x"), a);
  EXPECT_EQ(third.status, 429) << "alice's 3 a minute (the initialize was not a tool call)";
  EXPECT_EQ(third.headers["retry-after"], "20");
  EXPECT_NE(third.body.find("calls per minute"), std::string::npos);
  std::string b = initialize(kBob);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(request("POST", "/mcp", kBob, execute("print:x"), b).status, 200);
  auto m = request("GET", "/metrics", kProm);
  EXPECT_NE(m.body.find("paddock_mcp_refusals_total{reason=\"rate\",token=\"alice\"} 1\n"), std::string::npos) << m.body;
}

TEST_F(Fleet, DrainFinishesWhatRunsAndSendsEveryoneElseAway) {
  std::string busy = initialize(kBob), idle = initialize(kBob);
  auto running = std::async(std::launch::async, [&] { return request("POST", "/mcp", kBob, execute("sleep", 0.6), busy); });
  wait_sleeping(1);
  auto drained = std::async(std::launch::async, [&] { return http->drain(10s); });
  for (int i = 0; i < 100 && !http->draining(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(http->draining());
  auto ready = request("GET", "/readyz", "");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body, "draining\n");
  EXPECT_EQ(request("GET", "/healthz", "").status, 200) << "draining is alive";
  auto fresh = request("POST", "/mcp", kBob, kInit);
  EXPECT_EQ(fresh.status, 503) << "a new session is refused with nothing run: a balancer may retry it";
  EXPECT_EQ(fresh.headers["retry-after"], "1");
  auto gone = request("POST", "/mcp", kBob, execute("print:late"), idle);
  EXPECT_EQ(gone.status, 404) << "the protocol's session-not-found: the client re-initializes elsewhere";
  EXPECT_NE(gone.body.find("session not found"), std::string::npos);
  auto r = running.get();
  EXPECT_EQ(r.status, 200) << "the call in flight finished and was answered";
  EXPECT_EQ(json::parse(r.body)["result"]["structuredContent"]["timed_out"], true);
  EXPECT_TRUE(drained.get()) << "everything finished before the deadline";
  EXPECT_EQ(http->session_count(), 0u);
  EXPECT_EQ(fake->calls.load(), 1);
}

TEST_F(Fleet, DrainDeadlineCancelsAndTellsTheClient) {
  std::string s = initialize(kBob);
  auto running = std::async(std::launch::async, [&] { return request("POST", "/mcp", kBob, execute("sleep", 8), s); });
  wait_sleeping(1);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(http->drain(300ms));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  auto r = running.get();
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("drain deadline"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace paddock::mcp
