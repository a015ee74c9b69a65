#include "mcp/server.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <thread>

#include "mcp/fake_executor.h"

namespace paddock::mcp {
namespace {

using namespace std::chrono_literals;

class Collector : public Outbox {
 public:
  void send(const json& m) override {
    std::lock_guard lock(mu_);
    messages_.push_back(json::parse(to_wire(m)));  // through the wire format, as a client sees it
    cv_.notify_all();
  }
  void done() override {
    std::lock_guard lock(mu_);
    ++done_;
    cv_.notify_all();
  }
  // Waits for the response with this id.
  json response(const json& id, std::chrono::milliseconds wait = 5s) {
    std::unique_lock lock(mu_);
    json found;
    cv_.wait_for(lock, wait, [&] {
      for (const auto& m : messages_)
        if (m.contains("id") && m["id"] == id && !m.contains("method")) {
          found = m;
          return true;
        }
      return false;
    });
    return found;
  }
  std::vector<json> notifications(const std::string& method) {
    std::lock_guard lock(mu_);
    std::vector<json> out;
    for (const auto& m : messages_)
      if (m.value("method", "") == method) out.push_back(m);
    return out;
  }
  int done_count() {
    std::lock_guard lock(mu_);
    return done_;
  }
  std::size_t size() {
    std::lock_guard lock(mu_);
    return messages_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<json> messages_;
  int done_ = 0;
};

Config test_config() {
  Config cfg;
  cfg.defaults.max_concurrency = 4;
  Environment py;
  py.name = "python";
  py.command = {"/usr/bin/python3"};
  py.limits.timeout_seconds = 10;
  py.limits.max_output_bytes = 1000;
  cfg.environments["python"] = py;
  Environment sh = py;
  sh.name = "shell";
  cfg.environments["shell"] = sh;
  return cfg;
}

class ServerTest : public ::testing::Test {
 protected:
  ServerTest() {
    ServerOptions opts;
    opts.version = "9.9";
    opts.progress_interval = 20ms;
    server = std::make_unique<Server>(test_config(), fake, opts);
    conn = server->connect();
  }
  json request(int id, const std::string& method, json params = json::object()) {
    json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
    server->handle_raw(conn, m.dump(), out);
    return out->response(id);
  }
  void notify(const std::string& method, json params = json::object()) {
    json m = {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
    server->handle_raw(conn, m.dump(), out);
  }
  void initialize(const std::string& version = "2025-11-25") {
    json r = request(0, "initialize",
                     {{"protocolVersion", version},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    notify("notifications/initialized");
  }
  json call(int id, json args, json meta = nullptr) {
    json params = {{"name", "execute"}, {"arguments", args}};
    if (!meta.is_null()) params["_meta"] = meta;
    return request(id, "tools/call", params);
  }

  std::shared_ptr<FakeExecutor> fake = std::make_shared<FakeExecutor>();
  std::unique_ptr<Server> server;
  std::shared_ptr<Connection> conn;
  std::shared_ptr<Collector> out = std::make_shared<Collector>();
};

TEST_F(ServerTest, InitializeNegotiatesVersion) {
  json r = request(1, "initialize",
                   {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                    {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["result"]["capabilities"]["tools"]["listChanged"], false);
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "paddock");
  EXPECT_EQ(r["result"]["serverInfo"]["version"], "9.9");
  EXPECT_TRUE(r["result"]["instructions"].is_string());
  EXPECT_EQ(conn->protocol_version(), "2025-06-18");
}

TEST_F(ServerTest, UnknownVersionGetsLatest) {
  json r = request(1, "initialize", {{"protocolVersion", "1999-01-01"}});
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(ServerTest, OlderVersionsAccepted) {
  for (const char* v : {"2025-11-25", "2025-03-26", "2024-11-05"}) {
    auto c = server->connect();
    json m = {{"jsonrpc", "2.0"}, {"id", v}, {"method", "initialize"},
              {"params", {{"protocolVersion", v}}}};
    server->handle_raw(c, m.dump(), out);
    EXPECT_EQ(out->response(v)["result"]["protocolVersion"], v);
  }
}

TEST_F(ServerTest, InitializeNeedsProtocolVersion) {
  json r = request(1, "initialize", {{"capabilities", json::object()}});
  EXPECT_EQ(r["error"]["code"], rpc_error::kInvalidParams);
  r = request(2, "initialize", {{"protocolVersion", 5}});
  EXPECT_EQ(r["error"]["code"], rpc_error::kInvalidParams);
}

TEST_F(ServerTest, SecondInitializeRefused) {
  initialize();
  json r = request(1, "initialize", {{"protocolVersion", "2025-11-25"}});
  EXPECT_EQ(r["error"]["code"], rpc_error::kInvalidRequest);
}

TEST_F(ServerTest, RequestsBeforeInitializeAreRefusedButPingWorks) {
  EXPECT_EQ(request(1, "tools/list")["error"]["code"], rpc_error::kInvalidRequest);
  EXPECT_EQ(call(2, {{"environment", "python"}, {"code", "print:x"}})["error"]["code"],
            rpc_error::kInvalidRequest);
  EXPECT_EQ(fake->calls, 0);
  json p = request(3, "ping");
  EXPECT_TRUE(p["result"].is_object());
  EXPECT_TRUE(p["result"].empty());
}

TEST_F(ServerTest, UnknownMethod) {
  initialize();
  json r = request(1, "resources/list");
  EXPECT_EQ(r["error"]["code"], rpc_error::kMethodNotFound);
}

TEST_F(ServerTest, ParseErrorsAnsweredWithNullId) {
  server->handle_raw(conn, "{not json", out);
  json r = out->response(nullptr);
  EXPECT_EQ(r["error"]["code"], rpc_error::kParseError);
  server->handle_raw(conn, R"({"jsonrpc":"2.0","id":4,"method":7})", out);
  EXPECT_EQ(out->response(4)["error"]["code"], rpc_error::kInvalidRequest);
}

TEST_F(ServerTest, NotificationsGetNoAnswer) {
  initialize();
  std::size_t before = out->size();
  notify("notifications/whatever");
  notify("notifications/cancelled", {{"requestId", 12345}});
  server->handle_raw(conn, R"({"jsonrpc":"2.0","id":99,"result":{}})", out);
  EXPECT_EQ(out->size(), before);
}

TEST_F(ServerTest, ToolsListHasSchemas) {
  initialize();
  json r = request(1, "tools/list");
  const json& tools = r["result"]["tools"];
  ASSERT_GE(tools.size(), 2u);
  const json* exec = nullptr;
  for (const auto& t : tools)
    if (t["name"] == "execute") exec = &t;
  ASSERT_NE(exec, nullptr);
  EXPECT_EQ((*exec)["inputSchema"]["type"], "object");
  EXPECT_EQ((*exec)["inputSchema"]["properties"]["environment"]["enum"],
            json::array({"python", "shell"}));
  EXPECT_EQ((*exec)["outputSchema"]["type"], "object");
  EXPECT_NE((*exec)["description"].get<std::string>().find("no network"), std::string::npos);
}

// The model is told what network each environment has: none, only some hosts, or all but some.
TEST_F(ServerTest, ToolDescriptionNamesEachEnvironmentsNetwork) {
  Config cfg = test_config();
  cfg.environments["python"].allow_domains = {"pypi.org", "*.pythonhosted.org"};
  cfg.environments["shell"].network = true;
  cfg.environments["shell"].deny_domains = {"evil.example"};
  ServerOptions opts;
  server = std::make_unique<Server>(cfg, fake, opts);
  conn = server->connect();
  initialize();
  json r = request(1, "tools/list");
  std::string description;
  for (const auto& t : r["result"]["tools"])
    if (t["name"] == "execute") description = t["description"].get<std::string>();
  EXPECT_NE(description.find("network only to pypi.org, *.pythonhosted.org"), std::string::npos) << description;
  EXPECT_NE(description.find("network except evil.example"), std::string::npos) << description;
}

TEST_F(ServerTest, ExecuteReturnsTextAndStructuredContent) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "print:2\n"}});
  const json& res = r["result"];
  EXPECT_EQ(res["isError"], false);
  EXPECT_EQ(res["content"][0]["type"], "text");
  EXPECT_EQ(res["content"][0]["text"], "2\n");
  EXPECT_EQ(res["structuredContent"]["stdout"], "2\n");
  EXPECT_EQ(res["structuredContent"]["exit_code"], 0);
  EXPECT_EQ(res["structuredContent"]["timed_out"], false);
  EXPECT_EQ(res["structuredContent"]["truncated"], false);
  // Every required output field is present.
  json list = request(2, "tools/list");
  for (const auto& t : list["result"]["tools"]) {
    if (t["name"] != "execute") continue;
    for (const auto& k : t["outputSchema"]["required"])
      EXPECT_TRUE(res["structuredContent"].contains(k.get<std::string>())) << k;
  }
}

TEST_F(ServerTest, NonZeroExitIsToolError) {
  initialize();
  json r = call(1, {{"environment", "shell"}, {"code", "exit:3"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("exit code 3"),
            std::string::npos);
  EXPECT_EQ(r["result"]["structuredContent"]["exit_code"], 3);
}

TEST_F(ServerTest, BadArgumentsAreToolErrorsNotProtocolErrors) {
  initialize();
  for (json args : {json{{"environment", "cobol"}, {"code", "x"}}, json{{"code", "x"}},
                    json{{"environment", "python"}}, json{{"environment", "python"}, {"code", 5}},
                    json{{"environment", "python"}, {"code", "x"}, {"timeout_seconds", 999}},
                    json{{"environment", "python"}, {"code", "x"}, {"timeout_seconds", -1}},
                    json{{"environment", "python"}, {"code", "x"}, {"bogus", 1}}}) {
    json r = call(1, args);
    ASSERT_TRUE(r.contains("result")) << args.dump() << " -> " << r.dump();
    EXPECT_EQ(r["result"]["isError"], true) << args.dump();
  }
  EXPECT_EQ(fake->calls, 0);
}

TEST_F(ServerTest, UnknownToolAndMalformedCallAreInvalidParams) {
  initialize();
  EXPECT_EQ(request(1, "tools/call", {{"name", "nope"}})["error"]["code"],
            rpc_error::kInvalidParams);
  EXPECT_EQ(request(2, "tools/call", json::object())["error"]["code"], rpc_error::kInvalidParams);
  EXPECT_EQ(request(3, "tools/call", {{"name", "execute"}, {"arguments", "x"}})["error"]["code"],
            rpc_error::kInvalidParams);
}

TEST_F(ServerTest, SetupFailureIsToolErrorWithReason) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "fail"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("mount proc"),
            std::string::npos);
}

TEST_F(ServerTest, ExecutorCrashDoesNotTakeServerDown) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "throw"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(call(2, {{"environment", "python"}, {"code", "print:ok"}})["result"]["isError"], false);
}

TEST_F(ServerTest, OutputTruncationIsMarked) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "flood:5000"}});
  EXPECT_EQ(r["result"]["structuredContent"]["truncated"], true);
  EXPECT_EQ(r["result"]["structuredContent"]["stdout"].get<std::string>().size(), 1000u);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("[stdout truncated"),
            std::string::npos);
}

TEST_F(ServerTest, TimeoutIsToolError) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "sleep"}, {"timeout_seconds", 0.05}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["structuredContent"]["timed_out"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("timed out"),
            std::string::npos);
}

TEST_F(ServerTest, CancelStopsTheCallAndSuppressesTheResponse) {
  initialize();
  json m = {{"jsonrpc", "2.0"}, {"id", "slow"}, {"method", "tools/call"},
            {"params", {{"name", "execute"}, {"arguments", {{"environment", "python"}, {"code", "sleep"}}}}}};
  server->handle_raw(conn, m.dump(), out);
  fake->wait_sleeping(1);
  notify("notifications/cancelled", {{"requestId", "slow"}, {"reason", "user"}});
  server->wait_idle();
  EXPECT_TRUE(out->response("slow", 50ms).is_null());
  // The server still answers.
  EXPECT_TRUE(request(2, "ping").contains("result"));
}

TEST_F(ServerTest, SeveralCallsInFlight) {
  initialize();
  for (int i = 0; i < 3; ++i) {
    json m = {{"jsonrpc", "2.0"}, {"id", 100 + i}, {"method", "tools/call"},
              {"params", {{"name", "execute"}, {"arguments", {{"environment", "python"}, {"code", "sleep"}}}}}};
    server->handle_raw(conn, m.dump(), out);
  }
  fake->wait_sleeping(3);  // all three run at once
  json r = call(5, {{"environment", "python"}, {"code", "print:fast"}});
  EXPECT_EQ(r["result"]["content"][0]["text"], "fast");
  for (int i = 0; i < 3; ++i) notify("notifications/cancelled", {{"requestId", 100 + i}});
  server->wait_idle();
}

TEST_F(ServerTest, DuplicateInFlightIdRefused) {
  initialize();
  json m = {{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
            {"params", {{"name", "execute"}, {"arguments", {{"environment", "python"}, {"code", "sleep"}}}}}};
  server->handle_raw(conn, m.dump(), out);
  fake->wait_sleeping(1);
  server->handle_raw(conn, m.dump(), out);
  EXPECT_EQ(out->response(7)["error"]["code"], rpc_error::kInvalidRequest);
  notify("notifications/cancelled", {{"requestId", 7}});
  server->wait_idle();
}

TEST_F(ServerTest, ProgressNotificationsWhenTokenGiven) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "sleep"}, {"timeout_seconds", 0.2}},
                {{"progressToken", "tok"}});
  EXPECT_EQ(r["result"]["structuredContent"]["timed_out"], true);
  auto progress = out->notifications("notifications/progress");
  ASSERT_GE(progress.size(), 2u);
  double last = -1;
  for (const auto& p : progress) {
    EXPECT_EQ(p["params"]["progressToken"], "tok");
    EXPECT_GT(p["params"]["progress"].get<double>(), last);
    last = p["params"]["progress"].get<double>();
  }
  // None after the response.
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(out->notifications("notifications/progress").size(), progress.size());
}

TEST_F(ServerTest, NoProgressWithoutToken) {
  initialize();
  call(1, {{"environment", "python"}, {"code", "sleep"}, {"timeout_seconds", 0.1}});
  EXPECT_TRUE(out->notifications("notifications/progress").empty());
}

TEST_F(ServerTest, SessionsKeepStateAndBelongToTheirConnection) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "set:42"}, {"session", "new"}});
  ASSERT_EQ(r["result"]["isError"], false) << r.dump();
  std::string sid = r["result"]["structuredContent"]["session"];
  EXPECT_EQ(sid.rfind("s-", 0), 0u);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find(sid), std::string::npos);
  r = call(2, {{"environment", "python"}, {"code", "get"}, {"session", sid}});
  EXPECT_EQ(r["result"]["structuredContent"]["stdout"], "42");
  // Wrong environment.
  EXPECT_EQ(call(3, {{"environment", "shell"}, {"code", "get"}, {"session", sid}})["result"]["isError"],
            true);
  // Another connection cannot use it.
  auto other = server->connect();
  json m = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
            {"params", {{"protocolVersion", "2025-11-25"}}}};
  auto out2 = std::make_shared<Collector>();
  server->handle_raw(other, m.dump(), out2);
  json c = {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
            {"params", {{"name", "execute"}, {"arguments", {{"environment", "python"}, {"code", "get"}, {"session", sid}}}}}};
  server->handle_raw(other, c.dump(), out2);
  EXPECT_EQ(out2->response(2)["result"]["isError"], true);
  // Disconnect closes it.
  EXPECT_EQ(fake->open_sessions(), 1u);
  server->disconnect(conn);
  EXPECT_EQ(fake->open_sessions(), 0u);
}

TEST_F(ServerTest, CloseSessionTool) {
  initialize();
  json r = call(1, {{"environment", "python"}, {"code", "set:1"}, {"session", "new"}});
  std::string sid = r["result"]["structuredContent"]["session"];
  json c = request(2, "tools/call", {{"name", "close_session"}, {"arguments", {{"session", sid}}}});
  EXPECT_EQ(c["result"]["isError"], false);
  EXPECT_EQ(fake->open_sessions(), 0u);
  EXPECT_EQ(call(3, {{"environment", "python"}, {"code", "get"}, {"session", sid}})["result"]["isError"],
            true);
}

TEST_F(ServerTest, ListEnvironments) {
  initialize();
  json r = request(1, "tools/call", {{"name", "list_environments"}});
  ASSERT_EQ(r["result"]["isError"], false);
  EXPECT_EQ(r["result"]["structuredContent"]["environments"].size(), 2u);
  EXPECT_EQ(r["result"]["structuredContent"]["environments"][0]["name"], "python");
  EXPECT_EQ(r["result"]["structuredContent"]["environments"][0]["timeout_seconds"], 10);
}

TEST_F(ServerTest, EveryRequestGetsExactlyOneDone) {
  initialize();
  int before = out->done_count();
  request(1, "ping");
  request(2, "nope");
  call(3, {{"environment", "python"}, {"code", "print:x"}});
  server->wait_idle();
  EXPECT_EQ(out->done_count(), before + 3);
  notify("notifications/initialized");
  EXPECT_EQ(out->done_count(), before + 3);
}

}  // namespace
}  // namespace paddock::mcp
