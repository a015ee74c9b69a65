// The Streamable HTTP transport (MCP 2025-03-26 and later): one endpoint (default /mcp) taking
// POST (client messages; answers as application/json, or text/event-stream when the request
// asked for progress), GET (405: this server starts no streams of its own) and DELETE (ends the
// session). Sessions are server-minted Mcp-Session-Id values. Binds to loopback unless told
// otherwise; Origin (and, on loopback, Host) are checked against DNS rebinding. For a fleet:
// GET /healthz (alive) and /readyz (ready for new sessions) need no token and say nothing but
// that; GET /metrics (Prometheus) needs a token with the metrics scope; drain() for SIGTERM.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mcp/readiness.h"
#include "mcp/server.h"
#include "mcp/tokens.h"
#include "paddock/result.h"

namespace paddock::mcp {

struct HttpAddress {
  std::string host = "127.0.0.1";  // numeric IPv4/IPv6 or "localhost"
  std::uint16_t port = 8765;
  // A unix socket instead ("unix:PATH"): created mode 0600 (umask aside), never over an existing
  // file, removed on stop; only peers with this process's uid (or root) are served. File
  // permissions are the authentication: no token is needed.
  std::string unix_path;
};
// "127.0.0.1:8765", "[::1]:8765", "localhost:8765", "8765" (loopback), "unix:/run/user/1000/mcp.sock".
Result<HttpAddress> parse_http_address(std::string_view text);

// How long a connection may take (each an absolute deadline, which a peer sending a byte now
// and then cannot extend).
struct HttpTimeouts {
  std::chrono::milliseconds idle{60'000};  // for the first byte of the next request
  std::chrono::milliseconds head{10'000};  // for the rest of a request's head, from its first byte
  std::chrono::milliseconds body{60'000};  // for its body (up to max_body), from the end of the head
};

// What the transport tells about the requests it refused or admitted (metrics). Reasons:
// "unauthorized" (401), "scope" (403: the token may not use that path), "concurrency" and
// "rate" (429: the token's limits), "draining" (503/404 while draining), "connections" (503).
class HttpObserver {
 public:
  virtual ~HttpObserver() = default;
  virtual void refused(const std::string& reason, const std::string& token) { (void)reason, (void)token; }
  virtual void admitted(const std::string& token) { (void)token; }  // a tools/call of that token
};

struct HttpOptions {
  HttpAddress address;
  std::string path = "/mcp";
  std::vector<std::string> allowed_origins;  // exact "scheme://host[:port]" values
  std::size_t max_body = 8u << 20;
  // At most this many at once; when full, the one that has waited longest without a request
  // being served is closed to make room, so idle or trickling connections cannot lock clients out.
  std::size_t max_connections = 64;
  HttpTimeouts timeouts;
  std::chrono::seconds session_idle{3600};   // an HTTP session unused this long is ended
  // Bearer tokens (tokens.h): every request but /healthz and /readyz must carry one of them
  // ("Authorization: Bearer TOKEN"), with the scope its path needs; empty = no auth (only
  // allowed on loopback: listen() refuses otherwise). Each token's limits apply to its tools/call.
  TokenSet tokens;
  // GET /readyz (no token): ready, or 503 with the reason. Unset: ready unless draining.
  std::function<Readiness::Verdict(bool draining)> readiness;
  // GET /metrics (a token with the metrics scope): the exposition. Unset: 404.
  std::function<std::string()> metrics;
  std::shared_ptr<HttpObserver> observer;  // may be null
};

// Whether an Authorization header value is "Bearer <token>", compared in constant time.
bool bearer_matches(std::string_view authorization, std::string_view token);
// A fresh token: 32 random bytes from getrandom, hex.
Result<std::string> generate_token();

// Whether a request's Origin may talk to us: absent (not a browser), a loopback origin, or one
// the user allowed.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

class HttpServer {
 public:
  HttpServer(Server& server, HttpOptions options);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens (port 0 picks a free port: see port()).
  Result<void> listen();
  // Serves until stop() (from another thread or a signal thread).
  void serve();
  void stop();
  // Graceful drain (from another thread): /readyz turns 503, new sessions get 503 (nothing ran:
  // a load balancer may retry them elsewhere), requests on existing sessions get 404 "session
  // not found" so their clients re-initialize elsewhere; requests already being served finish,
  // up to `deadline`, after which their calls are cancelled (their clients get 503); then stop().
  // Returns whether everything finished before the deadline.
  bool drain(std::chrono::milliseconds deadline);
  bool draining() const;
  std::size_t session_count() const;
  std::uint16_t port() const { return port_; }
  // "http://127.0.0.1:8765/mcp" or "unix socket PATH, path /mcp", for the start-up line.
  std::string where() const;
  // Removes the unix socket this server created (for a process about to _exit without
  // destructors); nothing for TCP. Async-signal-safe.
  void remove_socket() const;

 private:
  struct Impl;
  Result<void> listen_unix();
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
};

// listen() + serve(), printing the URL to stderr.
Result<void> serve_http(Server& server, const HttpOptions& options);

}  // namespace paddock::mcp
