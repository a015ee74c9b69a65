#include "mcp/http_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "mcp/fake_executor.h"

namespace paddock::mcp {
namespace {

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

class HttpTest : public ::testing::Test {
 protected:
  HttpTest() {
    Environment py;
    py.name = "python";
    py.command = {"/usr/bin/python3"};
    py.limits.timeout_seconds = 5;
    cfg.environments["python"] = py;
    ServerOptions so;
    so.progress_interval = std::chrono::milliseconds(20);
    server = std::make_unique<Server>(cfg, fake, so);
    HttpOptions ho;
    ho.address = {"127.0.0.1", 0};
    http = std::make_unique<HttpServer>(*server, ho);
    auto r = http->listen();
    EXPECT_TRUE(r.ok()) << r.error().describe();
    thread = std::thread([this] { http->serve(); });
  }
  ~HttpTest() override {
    http->stop();
    thread.join();
  }

  HttpReply send(const std::string& method, const std::string& body,
                 std::vector<std::string> headers = {}, bool default_headers = true) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(http->port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    std::string req = method + " /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (default_headers)
      req += "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n";
    for (const auto& h : headers) req += h + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    EXPECT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
    std::string raw;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    HttpReply r;
    auto end = raw.find("\r\n\r\n");
    if (end == std::string::npos) return r;
    r.status = std::stoi(raw.substr(9, 3));
    std::size_t pos = raw.find("\r\n") + 2;
    while (pos < end) {
      auto e = raw.find("\r\n", pos);
      auto line = raw.substr(pos, e - pos);
      auto colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(c));
      r.headers[name] = line.substr(colon + 2);
      pos = e + 2;
    }
    r.body = raw.substr(end + 4);
    return r;
  }

  std::string initialize() {
    auto r = send("POST", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.headers["content-type"], "application/json");
    EXPECT_EQ(json::parse(r.body)["result"]["protocolVersion"], "2025-11-25");
    return r.headers["mcp-session-id"];
  }

  Config cfg;
  std::shared_ptr<FakeExecutor> fake = std::make_shared<FakeExecutor>();
  std::unique_ptr<Server> server;
  std::unique_ptr<HttpServer> http;
  std::thread thread;
};

TEST_F(HttpTest, InitializeMintsSessionAndCallsWork) {
  std::string sid = initialize();
  ASSERT_EQ(sid.size(), 32u);
  std::string h = "Mcp-Session-Id: " + sid;
  auto n = send("POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {h, "MCP-Protocol-Version: 2025-11-25"});
  EXPECT_EQ(n.status, 202);
  EXPECT_TRUE(n.body.empty());
  auto r = send("POST", R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"environment":"python","code":"print:hi"}}})", {h});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["result"]["content"][0]["text"], "hi");
}

TEST_F(HttpTest, SessionHeaderRules) {
  auto r = send("POST", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  EXPECT_EQ(r.status, 400);
  r = send("POST", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", {"Mcp-Session-Id: nope"});
  EXPECT_EQ(r.status, 404);
  std::string sid = initialize();
  r = send("POST", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
           {"Mcp-Session-Id: " + sid, "MCP-Protocol-Version: 1900-01-01"});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(send("DELETE", "", {"Mcp-Session-Id: " + sid}).status, 200);
  r = send("POST", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", {"Mcp-Session-Id: " + sid});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(send("DELETE", "", {"Mcp-Session-Id: " + sid}).status, 404);
}

TEST_F(HttpTest, OriginAndHostChecked) {
  auto r = send("POST", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", {"Origin: https://evil.example"});
  EXPECT_EQ(r.status, 403);
  r = send("POST", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})",
           {"Origin: http://localhost:3000"});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(origin_allowed("", {}));
  EXPECT_TRUE(origin_allowed("http://127.0.0.1:8080", {}));
  EXPECT_TRUE(origin_allowed("http://[::1]:1", {}));
  EXPECT_FALSE(origin_allowed("http://localhost.evil.example", {}));
  EXPECT_FALSE(origin_allowed("null", {}));
  EXPECT_TRUE(origin_allowed("https://app.example", {"https://app.example"}));
}

TEST_F(HttpTest, BadRequests) {
  EXPECT_EQ(send("POST", "{}", {}, false).status, 406);
  EXPECT_EQ(send("POST", "{", {"Accept: application/json, text/event-stream", "Content-Type: text/plain"}, false).status, 415);
  auto r = send("POST", "{not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], rpc_error::kParseError);
  EXPECT_EQ(send("GET", "").status, 405);
  EXPECT_EQ(send("PUT", "").status, 405);
}

TEST_F(HttpTest, ProgressStreamsAsServerSentEvents) {
  std::string sid = initialize();
  auto r = send("POST", R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute","arguments":{"environment":"python","code":"sleep","timeout_seconds":0.15},"_meta":{"progressToken":"p1"}}})",
                {"Mcp-Session-Id: " + sid});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/event-stream");
  std::vector<json> events;
  std::size_t pos = 0;
  while ((pos = r.body.find("data: ", pos)) != std::string::npos) {
    auto e = r.body.find('\n', pos);
    events.push_back(json::parse(r.body.substr(pos + 6, e - pos - 6)));
    pos = e;
  }
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front()["method"], "notifications/progress");
  EXPECT_EQ(events.back()["id"], 3);
  EXPECT_EQ(events.back()["result"]["structuredContent"]["timed_out"], true);
}

TEST(HttpAddress, Parse) {
  auto a = parse_http_address("127.0.0.1:8765");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8765);
  EXPECT_EQ(parse_http_address("[::1]:80")->host, "::1");
  EXPECT_EQ(parse_http_address("localhost:1")->host, "127.0.0.1");
  EXPECT_EQ(parse_http_address("9000")->host, "127.0.0.1");
  EXPECT_FALSE(parse_http_address("host:99999").ok());
  EXPECT_FALSE(parse_http_address("host:").ok());
}

}  // namespace
}  // namespace paddock::mcp
