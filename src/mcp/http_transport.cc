#include "mcp/http_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "mcp/drain_gate.h"
#include "mcp/token_limits.h"
#include "sys/unique_fd.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

using Clock = std::chrono::steady_clock;

// recv() that gives up at an absolute DEADLINE: a peer that trickles a byte now and then cannot
// extend it (SO_RCVTIMEO would restart with every byte).
ssize_t recv_by(int fd, char* buf, std::size_t len, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return -1;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno != EINTR) return -1;
    if (r <= 0) continue;
    ssize_t n = ::recv(fd, buf, len, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    return n;
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

struct HttpRequest {
  std::string method, target, version;
  std::map<std::string, std::string> headers;  // lower-case names; repeated ones joined by ", "
  std::string body;
  std::string path;              // target without the query
  const Token* token = nullptr;  // the bearer token that authenticated it, if any
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  bool has(const std::string& name) const { return headers.count(name) != 0; }
};

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = sys::retry_eintr([&] { return ::send(fd, data.data(), data.size(), MSG_NOSIGNAL); });
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
  }
  return "Unknown";
}

std::string response_head(int status, const std::vector<std::pair<std::string, std::string>>& headers,
                          bool keep_alive) {
  std::string h = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
  for (const auto& [k, v] : headers) h += k + ": " + v + "\r\n";
  h += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  return h;
}

bool send_response(int fd, int status, const std::string& content_type, const std::string& body,
                   std::vector<std::pair<std::string, std::string>> headers, bool keep_alive) {
  if (!content_type.empty()) headers.emplace_back("Content-Type", content_type);
  headers.emplace_back("Content-Length", std::to_string(body.size()));
  std::string out = response_head(status, headers, keep_alive) + "\r\n" + body;
  return send_all(fd, out);
}

// A JSON-RPC error as an HTTP response body (no id: the request could not be read).
std::string rpc_error_body(int code, const std::string& message, const json& id = nullptr) {
  return to_wire(error_response(id, code, message));
}

// Reads one request. 0 = ok, -1 = connection closed or timed out, else an HTTP status to send.
// AUTHORIZE sees the head before the body is read: a non-zero status (401, 403) is returned
// at once, so nothing of an unauthenticated request's body is read.
// Deadlines: IDLE for the first byte of a request, then HEAD for the rest of its head from that
// byte on, then BODY for its body; each absolute. ON_FIRST_BYTE is called when a request begins.
int read_request(int fd, std::string& buf, HttpRequest& req, std::size_t max_body,
                 const std::function<int(HttpRequest&)>& authorize, const HttpTimeouts& t,
                 const std::function<void()>& on_first_byte) {
  std::size_t end;
  Clock::time_point deadline = Clock::now() + (buf.empty() ? t.idle : t.head);
  bool begun = !buf.empty();
  if (begun) on_first_byte();
  while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > kMaxHeaderBytes) return 431;
    char tmp[16384];
    ssize_t n = recv_by(fd, tmp, sizeof tmp, deadline);
    if (n <= 0) return -1;
    buf.append(tmp, static_cast<std::size_t>(n));
    if (!begun) {
      begun = true;
      on_first_byte();
      deadline = Clock::now() + t.head;
    }
  }
  std::string_view head(buf.data(), end);
  std::size_t line_end = head.find("\r\n");
  std::string_view first = head.substr(0, line_end);
  auto sp1 = first.find(' ');
  auto sp2 = first.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return 400;
  req.method = std::string(first.substr(0, sp1));
  req.target = std::string(first.substr(sp1 + 1, sp2 - sp1 - 1));
  req.version = std::string(first.substr(sp2 + 1));
  if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0") return 400;
  std::size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    std::size_t e = head.find("\r\n", pos);
    if (e == std::string_view::npos) e = head.size();
    std::string_view line = head.substr(pos, e - pos);
    pos = e + 2;
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return 400;
    std::string name = lower(line.substr(0, colon));
    std::string value = trim(line.substr(colon + 1));
    auto [it, inserted] = req.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
  buf.erase(0, end + 4);
  req.path = req.target.substr(0, req.target.find('?'));
  if (int status = authorize(req); status != 0) return status;
  if (req.has("transfer-encoding")) return 501;  // chunked uploads: not needed by MCP clients
  std::size_t length = 0;
  if (req.has("content-length")) {
    const std::string& cl = req.header("content-length");
    if (cl.empty() || cl.size() > 12 || !std::all_of(cl.begin(), cl.end(), ::isdigit)) return 400;
    length = std::stoull(cl);
  } else if (req.method == "POST") {
    return 411;
  }
  if (length > max_body) return 413;
  deadline = Clock::now() + t.body;
  while (buf.size() < length) {
    char tmp[65536];
    ssize_t n = recv_by(fd, tmp, sizeof tmp, deadline);
    if (n <= 0) return -1;
    buf.append(tmp, static_cast<std::size_t>(n));
  }
  req.body = buf.substr(0, length);
  buf.erase(0, length);
  return 0;
}

bool is_loopback_host(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host == "::1";
}

// "host[:port]" -> host (IPv6 stays bracketed).
std::string host_part(std::string_view hostport) {
  if (!hostport.empty() && hostport.front() == '[') {
    auto close = hostport.find(']');
    return std::string(hostport.substr(0, close == std::string_view::npos ? hostport.size() : close + 1));
  }
  return std::string(hostport.substr(0, hostport.find(':')));
}

bool accepts(const HttpRequest& req, std::string_view type) {
  std::string a = lower(req.header("accept"));
  return a.find(type) != std::string::npos || a.find("*/*") != std::string::npos;
}

// Messages for one POSTed request, handed from the server's threads to the connection thread.
class Exchange : public Outbox {
 public:
  void send(const json& message) override {
    std::lock_guard lock(mu_);
    queue_.push_back(to_wire(message));
    cv_.notify_all();
  }
  void done() override {
    std::lock_guard lock(mu_);
    done_ = true;
    cv_.notify_all();
  }
  // Next message, or nullopt once done and drained.
  std::optional<std::string> next() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return !queue_.empty() || done_; });
    if (queue_.empty()) return std::nullopt;
    std::string m = std::move(queue_.front());
    queue_.pop_front();
    return m;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool done_ = false;
};

}  // namespace

Result<HttpAddress> parse_http_address(std::string_view text) {
  HttpAddress a;
  if (text.rfind("unix:", 0) == 0) {
    a.unix_path = std::string(text.substr(5));
    if (a.unix_path.empty() || a.unix_path[0] != '/')
      return make_error("expected unix:/ABSOLUTE/PATH", std::string(text));
    if (a.unix_path.size() >= sizeof(sockaddr_un{}.sun_path))
      return make_error("unix socket path too long (at most 107 bytes)", std::string(text));
    return a;
  }
  std::string_view port_text = text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find("]:");
    if (close == std::string_view::npos)
      return make_error("expected [IPv6]:PORT", std::string(text));
    a.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    a.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (a.host.empty()) a.host = "127.0.0.1";
  }
  if (port_text.empty() || port_text.size() > 5 ||
      !std::all_of(port_text.begin(), port_text.end(), ::isdigit))
    return make_error("expected ADDRESS:PORT, e.g. 127.0.0.1:8765", std::string(text));
  unsigned long port = std::stoul(std::string(port_text));
  if (port > 65535) return make_error("port out of range", std::string(text));
  a.port = static_cast<std::uint16_t>(port);
  if (a.host == "localhost") a.host = "127.0.0.1";
  return a;
}

bool bearer_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "Bearer ";
  if (token.empty() || authorization.size() < kScheme.size()) return false;
  // The scheme is case-insensitive (RFC 9110 11.1).
  if (lower(authorization.substr(0, kScheme.size())) != "bearer ") return false;
  std::string_view given = authorization.substr(kScheme.size());
  // Constant time in the token's content: every byte of the expected token is compared.
  volatile unsigned char diff = given.size() == token.size() ? 0 : 1;
  for (std::size_t i = 0; i < token.size(); ++i) {
    unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = diff | (g ^ static_cast<unsigned char>(token[i]));
  }
  return diff == 0;
}

Result<std::string> generate_token() {
  unsigned char raw[32];
  std::size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("getrandom");
    }
    got += static_cast<std::size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string t;
  for (unsigned char c : raw) {
    t += hex[c >> 4];
    t += hex[c & 15];
  }
  return t;
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;
  for (const auto& o : allowed)
    if (o == origin) return true;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.substr(0, scheme.size()) != scheme) continue;
    std::string_view rest = origin.substr(scheme.size());
    if (rest.find('/') != std::string_view::npos) return false;
    return is_loopback_host(host_part(rest));
  }
  return false;
}

// A unix socket's peer: this process's own user, or root (the file is 0600 anyway; this holds
// even if its mode or directory is loosened later).
bool peer_may_connect(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  return cred.uid == ::geteuid() || cred.uid == 0;
}

struct HttpServer::Impl {
  Server& server;
  HttpOptions options;
  sys::UniqueFd listener;
  sys::UniqueFd wake_read, wake_write;  // stop() wakes the accept loop through this pipe
  std::atomic<bool> stopping{false};
  bool loopback = true;

  struct McpSession {
    std::shared_ptr<Connection> conn;
    std::chrono::steady_clock::time_point last_used;
    int active = 0;  // requests being served
  };
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, McpSession> sessions;
  std::size_t connections = 0;
  // Open connections, for making room: one that is not in the middle of a request it has fully
  // sent (waiting for its next one, or still sending its head) may be closed for a newcomer.
  struct Open {
    int fd;
    Clock::time_point since;  // when it last began waiting or reading a head
    bool serving = false;     // a complete request is being answered
    bool evicted = false;     // shut down for a newcomer; leaving
  };
  std::map<std::uint64_t, Open> open;
  std::uint64_t next_id = 0;
  // Closes the connection that has waited longest without a request being served; false when
  // every connection is serving one. Called with `mu` held.
  bool evict_one() {
    auto victim = open.end();
    for (auto it = open.begin(); it != open.end(); ++it)
      if (!it->second.serving && !it->second.evicted &&
          (victim == open.end() || it->second.since < victim->second.since))
        victim = it;
    if (victim == open.end()) return false;
    ::shutdown(victim->second.fd, SHUT_RDWR);  // its thread sees the end and leaves
    victim->second.evicted = true;
    return true;
  }

  std::string unix_path;  // the socket file this server created, unlinked on destruction

  DrainGate gate;                            // requests being served; closed by drain()
  std::atomic<bool> deadline_passed{false};  // drain() cancelled what was still running
  TokenLimiter limiter;
  void refused(const char* reason, const HttpRequest* req = nullptr) {
    if (options.observer) options.observer->refused(reason, req && req->token ? req->token->name : "");
  }
  // Which requests need which token: /healthz and /readyz none (they reveal only whether this
  // worker is alive and takes new sessions), /metrics the metrics scope, the rest the mcp scope.
  int authorize(HttpRequest& req) const {
    if (req.path == "/healthz" || req.path == "/readyz") return 0;
    if (options.tokens.empty()) return 0;
    req.token = options.tokens.match(req.header("authorization"));
    if (!req.token) return 401;
    if (req.path == "/metrics" ? !req.token->metrics : !req.token->mcp) return 403;
    return 0;
  }
  // Ends a session now (draining, or its last request finished while draining).
  void end_session(const std::string& sid) {
    std::shared_ptr<Connection> conn;
    {
      std::lock_guard lock(mu);
      auto it = sessions.find(sid);
      if (it == sessions.end() || it->second.active > 0) return;
      conn = it->second.conn;
      sessions.erase(it);
    }
    server.disconnect(conn);
  }
  bool handle_fleet(int fd, const HttpRequest& req, bool keep_alive);

  Impl(Server& s, HttpOptions o) : server(s), options(std::move(o)) {}
  ~Impl() {
    if (!unix_path.empty()) ::unlink(unix_path.c_str());
  }

  void handle_connection(sys::UniqueFd fd, std::uint64_t id);
  // Returns false when the connection must be closed.
  bool handle_request(int fd, const HttpRequest& req);
  bool handle_post(int fd, const HttpRequest& req, bool keep_alive);
  void reap_idle();
};

HttpServer::HttpServer(Server& server, HttpOptions options)
    : impl_(std::make_unique<Impl>(server, std::move(options))) {}

HttpServer::~HttpServer() { stop(); }

Result<void> HttpServer::listen_unix() {
  const std::string& path = impl_->options.address.unix_path;
  sys::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return errno_error("socket");
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  // Born 0600: bind creates the socket file with the umask applied, so tighten the umask around
  // it rather than chmod afterwards (a window in which others could connect).
  const mode_t old_mask = ::umask(0177);
  const int b = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  const int e = errno;
  ::umask(old_mask);
  if (b != 0) {
    if (e == EADDRINUSE)
      return make_error("cannot listen: the path exists", path,
                        "remove it if it is a stale socket of an earlier server, or choose another path");
    return errno_error("cannot bind", e, path);
  }
  impl_->unix_path = path;  // removed on destruction
  if (::listen(fd.get(), 128) != 0) return errno_error("listen");
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return errno_error("pipe");
  impl_->wake_read.reset(p[0]);
  impl_->wake_write.reset(p[1]);
  impl_->listener = std::move(fd);
  impl_->loopback = false;  // no Host to check: browsers cannot reach a unix socket
  return ok_result();
}

Result<void> HttpServer::listen() {
  const HttpAddress& a = impl_->options.address;
  if (!a.unix_path.empty()) return listen_unix();
  sockaddr_storage ss{};
  socklen_t len = 0;
  int family;
  if (a.host.find(':') != std::string::npos) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(a.port);
    if (inet_pton(AF_INET6, a.host.c_str(), &s6->sin6_addr) != 1)
      return make_error("not a numeric IPv6 address", a.host);
    impl_->loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
    len = sizeof *s6;
    family = AF_INET6;
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(a.port);
    if (inet_pton(AF_INET, a.host.c_str(), &s4->sin_addr) != 1)
      return make_error("not a numeric IPv4 address", a.host, "use 127.0.0.1 or localhost");
    impl_->loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
    len = sizeof *s4;
    family = AF_INET;
  }
  if (!impl_->loopback && impl_->options.tokens.empty())
    return make_error("refusing to serve MCP over HTTP on a non-loopback address without a token",
                      a.host, "drop --danger-http-no-auth, or bind 127.0.0.1");
  sys::UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return errno_error("socket");
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0)
    return errno_error("cannot bind", errno, a.host + ":" + std::to_string(a.port));
  if (::listen(fd.get(), 128) != 0) return errno_error("listen");
  sockaddr_storage bound{};
  socklen_t blen = sizeof bound;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &blen);
  port_ = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                  : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return errno_error("pipe");
  impl_->wake_read.reset(p[0]);
  impl_->wake_write.reset(p[1]);
  impl_->listener = std::move(fd);
  return ok_result();
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  if (impl_->wake_write) (void)!::write(impl_->wake_write.get(), "x", 1);
}

void HttpServer::serve() {
  Impl& im = *impl_;
  for (;;) {
    pollfd pfds[2] = {{im.listener.get(), POLLIN, 0}, {im.wake_read.get(), POLLIN, 0}};
    int r = ::poll(pfds, 2, 1000);
    if (im.stopping) break;
    im.reap_idle();
    if (r <= 0 || !(pfds[0].revents & POLLIN)) continue;
    sys::UniqueFd c(::accept4(im.listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!c) continue;
    if (!im.unix_path.empty() && !peer_may_connect(c.get())) {
      send_response(c.get(), 403, "text/plain", "Forbidden: another user\n", {}, false);
      continue;
    }
    std::uint64_t id;
    {
      // Full: room is made by closing the connection that has waited longest without a request
      // (idle keep-alives, slow or trickling heads), so that nobody can hold the server by
      // opening connections and saying nothing. Only when every one is being served: 503.
      std::lock_guard lock(im.mu);
      if (im.connections >= im.options.max_connections && !im.evict_one()) {
        im.refused("connections");
        send_response(c.get(), 503, "text/plain", "too many connections\n", {}, false);
        continue;
      }
      ++im.connections;
      id = im.next_id++;
      im.open[id] = {c.get(), Clock::now(), false, false};  // evictable from now on
    }
    std::thread([&im, id, fd = std::move(c)]() mutable { im.handle_connection(std::move(fd), id); }).detach();
  }
  // End every MCP session, then wait for the connection threads to go.
  std::map<std::string, Impl::McpSession> doomed;
  {
    std::lock_guard lock(im.mu);
    doomed.swap(im.sessions);
  }
  for (auto& [id, s] : doomed) im.server.disconnect(s.conn);
  std::unique_lock lock(im.mu);
  im.cv.wait_for(lock, std::chrono::seconds(5), [&] { return im.connections == 0; });
}

void HttpServer::Impl::reap_idle() {
  std::vector<std::shared_ptr<Connection>> idle;
  {
    std::lock_guard lock(mu);
    auto now = std::chrono::steady_clock::now();
    for (auto it = sessions.begin(); it != sessions.end();) {
      if (it->second.active == 0 && now - it->second.last_used > options.session_idle) {
        idle.push_back(it->second.conn);
        it = sessions.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : idle) server.disconnect(c);
}

void HttpServer::Impl::handle_connection(sys::UniqueFd fd, std::uint64_t id) {
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  auto set_state = [&](bool serving) {
    std::lock_guard lock(mu);
    auto it = open.find(id);
    if (it == open.end()) return;
    if (!serving) it->second.since = Clock::now();
    it->second.serving = serving;
  };
  std::string buf;
  while (!stopping) {
    HttpRequest req;
    set_state(false);
    // The head's deadline runs from its first byte; being evictable, a head that is slow to come
    // may also lose its place to a newcomer.
    int status = read_request(fd.get(), buf, req, options.max_body,
                              [this](HttpRequest& r) { return authorize(r); }, options.timeouts,
                              [&] { set_state(false); });
    if (status < 0) break;
    set_state(true);
    if (status == 401) {
      // Nothing runs and the body is never read; the connection ends.
      refused("unauthorized");
      send_response(fd.get(), 401, "application/json",
                    rpc_error_body(rpc_error::kInvalidRequest,
                                   "Unauthorized: send Authorization: Bearer <token>"),
                    {{"WWW-Authenticate", "Bearer realm=\"paddock-mcp\""}}, false);
      break;
    }
    if (status == 403) {
      refused("scope", &req);
      send_response(fd.get(), 403, "application/json",
                    rpc_error_body(rpc_error::kInvalidRequest,
                                   "Forbidden: this token may not use " + req.path),
                    {}, false);
      break;
    }
    if (status > 0) {
      send_response(fd.get(), status, "application/json",
                    rpc_error_body(rpc_error::kInvalidRequest, reason_phrase(status)), {}, false);
      break;
    }
    if (!handle_request(fd.get(), req)) break;
  }
  std::lock_guard lock(mu);
  open.erase(id);
  fd.reset();
  --connections;
  cv.notify_all();
}

bool HttpServer::Impl::handle_request(int fd, const HttpRequest& req) {
  bool keep_alive = req.version == "HTTP/1.1" && lower(req.header("connection")) != "close";
  auto plain = [&](int status, const std::string& text,
                   std::vector<std::pair<std::string, std::string>> headers = {}) {
    send_response(fd, status, "application/json", rpc_error_body(rpc_error::kInvalidRequest, text),
                  std::move(headers), keep_alive);
    return keep_alive;
  };
  // DNS rebinding: a browser page must not reach this server through a name it controls.
  if (!origin_allowed(req.header("origin"), options.allowed_origins))
    return plain(403, "Forbidden: Origin not allowed");
  if (loopback && req.has("host") && !is_loopback_host(host_part(req.header("host"))))
    return plain(403, "Forbidden: Host must be a loopback name");
  if (req.path == "/healthz" || req.path == "/readyz" || req.path == "/metrics")
    return handle_fleet(fd, req, keep_alive);
  if (req.path != options.path) return plain(404, "Not Found: the MCP endpoint is " + options.path);

  if (req.method == "POST") return handle_post(fd, req, keep_alive);
  if (req.method == "GET") {
    // No server-initiated messages: no standalone SSE stream (allowed by the specification).
    return plain(405, "Method Not Allowed: this server sends no server-initiated messages",
                 {{"Allow", "POST, DELETE"}});
  }
  if (req.method == "DELETE") {
    std::string sid = req.header("mcp-session-id");
    if (sid.empty()) return plain(400, "Bad Request: Mcp-Session-Id header required");
    std::shared_ptr<Connection> conn;
    {
      std::lock_guard lock(mu);
      auto it = sessions.find(sid);
      if (it != sessions.end()) {
        conn = it->second.conn;
        sessions.erase(it);
      }
    }
    if (!conn) return plain(404, "Not Found: no such session");
    server.disconnect(conn);
    send_response(fd, 200, "", "", {}, keep_alive);
    return keep_alive;
  }
  return plain(405, "Method Not Allowed", {{"Allow", "POST, DELETE"}});
}

bool HttpServer::Impl::handle_post(int fd, const HttpRequest& req, bool keep_alive) {
  auto fail = [&](int status, int code, const std::string& text, const json& id = nullptr) {
    send_response(fd, status, "application/json", rpc_error_body(code, text, id), {}, keep_alive);
    return keep_alive;
  };
  if (!accepts(req, "application/json") || !accepts(req, "text/event-stream"))
    return fail(406, rpc_error::kInvalidRequest,
                "Not Acceptable: Accept must list application/json and text/event-stream");
  std::string ctype = lower(req.header("content-type"));
  if (ctype.rfind("application/json", 0) != 0)
    return fail(415, rpc_error::kInvalidRequest, "Unsupported Media Type: send application/json");

  Parsed parsed = parse_message(req.body);
  if (!parsed.ok()) return fail(400, parsed.failure.code, parsed.failure.message, parsed.failure.id);
  Message& m = *parsed.message;
  bool is_init = m.is_request() && m.method == "initialize";

  std::string sid = req.header("mcp-session-id");
  std::shared_ptr<Connection> conn;
  std::vector<std::pair<std::string, std::string>> extra;
  // Every request from here on is served through the drain gate: once draining, nothing new.
  if (!gate.enter()) {
    refused("draining", &req);
    if (is_init || sid.empty()) {
      // Nothing ran: a load balancer may send it to another worker.
      send_response(fd, 503, "application/json",
                    rpc_error_body(rpc_error::kInvalidRequest,
                                   "Service Unavailable: this worker is draining; try another",
                                   m.is_request() ? m.id : json(nullptr)),
                    {{"Retry-After", "1"}}, false);
      return false;
    }
    end_session(sid);
    return fail(404, rpc_error::kInvalidRequest,
                "Not Found: session not found (this worker is draining): initialize a new session",
                m.is_request() ? m.id : json(nullptr));
  }
  struct Leave {
    DrainGate& g;
    ~Leave() { g.leave(); }
  } leave{gate};
  if (is_init) {
    if (!sid.empty())
      return fail(400, rpc_error::kInvalidRequest,
                  "Bad Request: initialize must not carry an Mcp-Session-Id", m.id);
    conn = server.connect();
    sid = random_hex_id();
    extra.emplace_back("Mcp-Session-Id", sid);
  } else {
    if (sid.empty())
      return fail(400, rpc_error::kInvalidRequest, "Bad Request: Mcp-Session-Id header required",
                  m.is_request() ? m.id : json(nullptr));
    std::lock_guard lock(mu);
    auto it = sessions.find(sid);
    if (it == sessions.end())
      return fail(404, rpc_error::kInvalidRequest, "Not Found: session expired or unknown",
                  m.is_request() ? m.id : json(nullptr));
    conn = it->second.conn;
    it->second.last_used = std::chrono::steady_clock::now();
    ++it->second.active;
    std::string pv = req.header("mcp-protocol-version");
    const auto& versions = supported_protocol_versions();
    if (!pv.empty() && std::find(versions.begin(), versions.end(), pv) == versions.end()) {
      --it->second.active;
      return fail(400, rpc_error::kInvalidRequest,
                  "Bad Request: unsupported MCP-Protocol-Version " + pv, m.is_request() ? m.id : json(nullptr));
    }
  }
  struct Release {
    Impl* im;
    std::string sid;
    bool active;
    ~Release() {
      if (!active) return;
      {
        std::lock_guard lock(im->mu);
        if (auto it = im->sessions.find(sid); it != im->sessions.end()) {
          --it->second.active;
          it->second.last_used = std::chrono::steady_clock::now();
        }
      }
      // Draining: a session ends once its last request is answered.
      if (im->gate.draining()) im->end_session(sid);
    }
  } release{this, sid, !is_init};

  // The token's limits, for calls that may run code; refused calls never reach the server.
  struct Admission {
    TokenLimiter* limiter = nullptr;
    const Token* token = nullptr;
    ~Admission() {
      if (limiter) limiter->release(*token);
    }
  } admission;
  if (m.is_request() && m.method == "tools/call" && req.token) {
    auto d = limiter.admit(*req.token, TokenLimiter::Clock::now());
    if (!d.admitted()) {
      refused(verdict_name(d.verdict), &req);
      const TokenLimits& l = req.token->limits;
      std::string why = d.verdict == TokenLimiter::Verdict::TooManyInFlight
                            ? "Too Many Requests: token \"" + req.token->name + "\" has " +
                                  std::to_string(l.max_concurrency) + " calls in flight (its max_concurrency)"
                            : "Too Many Requests: token \"" + req.token->name + "\" used its " +
                                  std::to_string(l.calls_per_minute) + " calls per minute";
      send_response(fd, 429, "application/json", rpc_error_body(rpc_error::kInvalidRequest, why, m.id),
                    {{"Retry-After", std::to_string(d.retry_after.count())}}, keep_alive);
      return keep_alive;
    }
    admission = {&limiter, req.token};
    if (options.observer) options.observer->admitted(req.token->name);
  }

  if (!m.is_request()) {
    server.handle(conn, std::move(m), std::make_shared<Exchange>());
    send_response(fd, 202, "", "", {}, keep_alive);
    return keep_alive;
  }

  // A request: stream (SSE) when progress was asked for, otherwise one JSON body.
  bool stream = m.method == "tools/call" && m.params.is_object() && m.params.contains("_meta") &&
                m.params["_meta"].is_object() && m.params["_meta"].contains("progressToken");
  auto exchange = std::make_shared<Exchange>();
  json id = m.id;
  server.handle(conn, std::move(m), exchange);
  if (is_init) {
    // Register the session only if initialize succeeded.
    if (conn->initialized()) {
      std::lock_guard lock(mu);
      sessions[sid] = McpSession{conn, std::chrono::steady_clock::now(), 0};
    } else {
      extra.clear();
    }
  }
  if (!stream) {
    std::optional<std::string> reply, msg;
    while ((msg = exchange->next()))
      if (!reply) reply = std::move(msg);
    if (!reply && deadline_passed) {
      // Cancelled by drain() at its deadline: the client must hear that, and go elsewhere.
      send_response(fd, 503, "application/json",
                    rpc_error_body(rpc_error::kInvalidRequest,
                                   "Service Unavailable: the worker stopped at its drain deadline and "
                                   "cancelled this call; initialize a new session",
                                   id),
                    {}, false);
      return false;
    }
    if (!reply) {
      send_response(fd, 202, "", "", extra, keep_alive);  // cancelled: nothing to say
      return keep_alive;
    }
    return send_response(fd, 200, "application/json", *reply, extra, keep_alive) && keep_alive;
  }
  extra.emplace_back("Content-Type", "text/event-stream");
  extra.emplace_back("Cache-Control", "no-cache");
  bool ok = send_all(fd, response_head(200, extra, false) + "\r\n");
  int event = 0;
  while (auto msg = exchange->next()) {
    // A client that went away does not cancel the call (per the specification); we just stop
    // writing and let it finish.
    if (ok) ok = send_all(fd, "id: " + std::to_string(++event) + "\nevent: message\ndata: " + *msg + "\n\n");
  }
  return false;  // the stream ends with the connection
}

bool HttpServer::Impl::handle_fleet(int fd, const HttpRequest& req, bool keep_alive) {
  if (req.method != "GET") {
    send_response(fd, 405, "text/plain", "Method Not Allowed\n", {{"Allow", "GET"}}, keep_alive);
    return keep_alive;
  }
  if (req.path == "/healthz") {
    send_response(fd, 200, "text/plain", "ok\n", {{"Cache-Control", "no-store"}}, keep_alive);
    return keep_alive;
  }
  if (req.path == "/readyz") {
    const bool draining = gate.draining();
    Readiness::Verdict v = options.readiness ? options.readiness(draining)
                                             : Readiness::Verdict{!draining, draining ? "draining" : "ready"};
    send_response(fd, v.ready ? 200 : 503, "text/plain", v.reason + "\n", {{"Cache-Control", "no-store"}},
                  keep_alive);
    return keep_alive;
  }
  if (!options.metrics) {
    send_response(fd, 404, "text/plain", "Not Found: no metrics here\n", {}, keep_alive);
    return keep_alive;
  }
  send_response(fd, 200, "text/plain; version=0.0.4; charset=utf-8", options.metrics(),
                {{"Cache-Control", "no-store"}}, keep_alive);
  return keep_alive;
}

bool HttpServer::drain(std::chrono::milliseconds deadline) {
  Impl& im = *impl_;
  const auto until = std::chrono::steady_clock::now() + deadline;
  if (!im.gate.begin()) return false;
  // Idle sessions end now; busy ones when their last request is answered (Release).
  std::vector<std::string> ids;
  {
    std::lock_guard lock(im.mu);
    for (const auto& [id, s] : im.sessions) ids.push_back(id);
  }
  for (const auto& id : ids) im.end_session(id);
  bool finished = im.gate.wait_idle(until);
  if (!finished) {
    im.deadline_passed = true;
    im.server.cancel_all();
    (void)im.gate.wait_idle(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  }
  stop();
  return finished;
}

bool HttpServer::draining() const { return impl_->gate.draining(); }

std::size_t HttpServer::session_count() const {
  std::lock_guard lock(impl_->mu);
  return impl_->sessions.size();
}

std::string HttpServer::where() const {
  const HttpOptions& o = impl_->options;
  if (!o.address.unix_path.empty()) return "unix socket " + o.address.unix_path + ", path " + o.path;
  std::string host = o.address.host.find(':') != std::string::npos ? "[" + o.address.host + "]" : o.address.host;
  return "http://" + host + ":" + std::to_string(port_) + o.path;
}

void HttpServer::remove_socket() const {
  if (impl_ && !impl_->unix_path.empty()) ::unlink(impl_->unix_path.c_str());
}

Result<void> serve_http(Server& server, const HttpOptions& options) {
  HttpServer http(server, options);
  if (auto r = http.listen(); !r) return r;
  std::fprintf(stderr, "paddock mcp: serving MCP (Streamable HTTP) at %s\n", http.where().c_str());
  http.serve();
  return ok_result();
}

}  // namespace paddock::mcp
