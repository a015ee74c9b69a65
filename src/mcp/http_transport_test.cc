#include "mcp/http_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "mcp/fake_executor.h"
#include "mcp/http_test_client.h"

namespace paddock::mcp {
namespace {

constexpr const char* kToken = "test-token-0123456789abcdef";

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
    ho.tokens = TokenSet::single(kToken);
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
    std::string req = method + " /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (default_headers)
      req += "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
             "Authorization: Bearer " + std::string(kToken) + "\r\n";
    for (const auto& h : headers) req += h + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return http_exchange(http->port(), req);
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
  std::string auth = std::string("Authorization: Bearer ") + kToken;
  EXPECT_EQ(send("POST", "{}", {auth}, false).status, 406);
  EXPECT_EQ(send("POST", "{", {"Accept: application/json, text/event-stream", "Content-Type: text/plain", auth}, false).status, 415);
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

constexpr const char* kExecute =
    R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"environment":"python","code":"print:hi"}}})";

TEST_F(HttpTest, MissingOrWrongTokenGets401AndNothingRuns) {
  std::string sid = initialize();
  std::string ctype = "Content-Type: application/json";
  std::string accept = "Accept: application/json, text/event-stream";
  for (std::string auth : {std::string(), std::string("Authorization: Bearer wrong-token-0123456789abc"),
                           std::string("Authorization: Bearer ") + kToken + "x",
                           std::string("Authorization: Basic ") + kToken,
                           std::string("Authorization: Bearer")}) {
    std::vector<std::string> h = {ctype, accept, "Mcp-Session-Id: " + sid};
    if (!auth.empty()) h.push_back(auth);
    auto r = send("POST", kExecute, h, false);
    EXPECT_EQ(r.status, 401) << auth;
    EXPECT_EQ(r.headers["www-authenticate"].rfind("Bearer", 0), 0u) << auth;
  }
  auto r = send("POST", R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})",
                {ctype, accept}, false);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(fake->calls.load(), 0);
  // The scheme is case-insensitive; the right token runs the call.
  r = send("POST", kExecute, {ctype, accept, "Mcp-Session-Id: " + sid, std::string("Authorization: bearer ") + kToken}, false);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(fake->calls.load(), 1);
}

TEST_F(HttpTest, UnauthorizedAnsweredBeforeTheBodyIsRead) {
  // Announce a body and never send it: the 401 must still come (the body is not waited for).
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(http->port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  std::string req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    "Content-Length: 100000\r\n\r\n";
  ASSERT_EQ(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  timeval tv{20, 0};  // generous: fails only if the server waits for the body
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[256];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  ::close(fd);
  ASSERT_GT(n, 12);
  EXPECT_EQ(std::string(buf, 12), "HTTP/1.1 401");
}

TEST(HttpAuth, BearerCompare) {
  EXPECT_TRUE(bearer_matches("Bearer abcdefghijklmnop", "abcdefghijklmnop"));
  EXPECT_TRUE(bearer_matches("BEARER abcdefghijklmnop", "abcdefghijklmnop"));
  EXPECT_FALSE(bearer_matches("Bearer abcdefghijklmno", "abcdefghijklmnop"));
  EXPECT_FALSE(bearer_matches("Bearer abcdefghijklmnopq", "abcdefghijklmnop"));
  EXPECT_FALSE(bearer_matches("Bearer abcdefghijklmnoX", "abcdefghijklmnop"));
  EXPECT_FALSE(bearer_matches("", "abcdefghijklmnop"));
  EXPECT_FALSE(bearer_matches("Bearer ", ""));
  auto t1 = generate_token(), t2 = generate_token();
  ASSERT_TRUE(t1.ok());
  EXPECT_EQ(t1->size(), 64u);
  EXPECT_NE(*t1, *t2);
}

TEST(HttpAuth, NonLoopbackWithoutTokenRefused) {
  Config cfg;
  Server server(cfg, std::make_shared<FakeExecutor>(), {});
  HttpOptions ho;
  ho.address = {"0.0.0.0", 0};
  HttpServer http(server, ho);
  auto r = http.listen();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().describe().find("without a token"), std::string::npos);
}

// Sends one POST over the unix socket PATH; the raw reply, or "" when connect fails (errno kept).
std::string unix_post(const std::string& path, const std::string& body) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return "";
  }
  std::string req = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                    "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string raw;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return raw;
}

TEST(HttpUnix, PrivateSocketNoTokenAndRemovedAtTheEnd) {
  char dir[] = "/tmp/paddock-mcp-unix-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  ::chmod(dir, 0755);
  const std::string path = std::string(dir) + "/mcp.sock";
  Config cfg;
  Server server(cfg, std::make_shared<FakeExecutor>(), {});
  HttpOptions ho;
  auto addr = parse_http_address("unix:" + path);
  ASSERT_TRUE(addr.ok()) << addr.error().describe();
  ho.address = *addr;
  const mode_t old = ::umask(0);  // the socket must be private whatever the umask
  auto http = std::make_unique<HttpServer>(server, ho);
  auto r = http->listen();
  ::umask(old);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  std::thread t([&] { http->serve(); });
  struct stat st;
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // No token needed: the file is the authentication.
  const std::string init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
  std::string reply = unix_post(path, init);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  // A second server on the same path is refused, and the first keeps its socket.
  HttpServer second(server, ho);
  auto again = second.listen();
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().describe().find("the path exists"), std::string::npos) << again.error().describe();
  EXPECT_EQ(::lstat(path.c_str(), &st), 0);
  if (::geteuid() == 0) {
    // Another user: refused by the file's mode, and by uid even when the mode is loosened.
    for (mode_t mode : {0600, 0666}) {
      ASSERT_EQ(::chmod(path.c_str(), mode), 0);
      pid_t pid = ::fork();
      if (pid == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
        std::string other = unix_post(path, init);
        if (other.empty()) ::_exit(errno == EACCES ? 10 : 4);
        ::_exit(other.rfind("HTTP/1.1 403", 0) == 0 ? 11 : 5);
      }
      int status = 0;
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), mode == 0600 ? 10 : 11) << "mode " << std::oct << mode;
    }
  }
  http->stop();
  t.join();
  http.reset();
  EXPECT_NE(::lstat(path.c_str(), &st), 0) << "the socket file outlived the server";
  ::rmdir(dir);
}

// A server on a free loopback port with OPTIONS (token kToken), served on its own thread.
struct LiveServer {
  explicit LiveServer(HttpOptions o) {
    o.address = {"127.0.0.1", 0};
    o.tokens = TokenSet::single(kToken);
    server = std::make_unique<Server>(cfg, std::make_shared<FakeExecutor>(), ServerOptions{});
    http = std::make_unique<HttpServer>(*server, o);
    auto r = http->listen();
    EXPECT_TRUE(r.ok()) << r.error().describe();
    thread = std::thread([this] { http->serve(); });
  }
  ~LiveServer() {
    http->stop();
    thread.join();
  }
  int connect() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(http->port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }
  // One initialize request on a new connection; the reply's status line.
  std::string initialize() const {
    int fd = connect();
    const std::string body = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
    std::string req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                      "Authorization: Bearer " + std::string(kToken) + "\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body;
    (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string raw;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return raw.substr(0, raw.find("\r\n"));
  }
  Config cfg;
  std::unique_ptr<Server> server;
  std::unique_ptr<HttpServer> http;
  std::thread thread;
};

// Connections that say nothing hold no place a newcomer needs (issue 18, item 6): at capacity,
// the one waiting longest is closed for the new client.
TEST(HttpLockout, IdleConnectionsMakeRoomForANewClient) {
  HttpOptions o;
  o.max_connections = 4;
  LiveServer s(o);
  std::vector<int> idle;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) idle.push_back(s.connect());
    usleep(100000);
    EXPECT_EQ(s.initialize(), "HTTP/1.1 200 OK") << "round " << round;
  }
  for (int fd : idle) ::close(fd);
}

// A head trickled a byte at a time is cut at its deadline, however often bytes come, and while
// tricklers fill every place a newcomer is still served.
TEST(HttpLockout, TricklingHeadsAreCutAndDoNotLockClientsOut) {
  HttpOptions o;
  o.max_connections = 4;
  o.timeouts.head = std::chrono::milliseconds(800);
  LiveServer s(o);
  std::vector<int> tricklers;
  for (int i = 0; i < 4; ++i) {
    int fd = s.connect();
    ASSERT_EQ(::send(fd, "POST /mcp HTTP/1.1\r\n", 20, MSG_NOSIGNAL), 20);
    tricklers.push_back(fd);
  }
  EXPECT_EQ(s.initialize(), "HTTP/1.1 200 OK");
  // Keep trickling a header line every 100 ms: the server must close them all within the head
  // deadline (plus scheduling slack), not 60 s or never.
  const auto start = std::chrono::steady_clock::now();
  std::size_t closed = 0;
  std::vector<bool> done(tricklers.size(), false);
  while (closed < tricklers.size() && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    for (std::size_t i = 0; i < tricklers.size(); ++i) {
      if (done[i]) continue;
      char c;
      ssize_t r = ::recv(tricklers[i], &c, 1, MSG_DONTWAIT);
      if (r == 0 || ::send(tricklers[i], "X: y\r\n", 6, MSG_NOSIGNAL) < 0) {
        done[i] = true;
        ++closed;
      }
    }
    usleep(100000);
  }
  EXPECT_EQ(closed, tricklers.size()) << "trickling connections were still open after 5 s";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  for (int fd : tricklers) ::close(fd);
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
  EXPECT_EQ(parse_http_address("unix:/run/mcp.sock")->unix_path, "/run/mcp.sock");
  EXPECT_FALSE(parse_http_address("unix:relative.sock").ok());
  EXPECT_FALSE(parse_http_address("unix:/" + std::string(200, 'x')).ok());
}

}  // namespace
}  // namespace paddock::mcp
