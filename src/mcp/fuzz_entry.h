// The fuzzing entry point, shared by the libFuzzer target (message_fuzz.cc) and the unit test
// that replays the corpus. Header-only so the library does not carry it.
#pragma once

#include <memory>
#include <string_view>

#include "mcp/fake_executor.h"
#include "mcp/server.h"

namespace paddock::mcp {

class DiscardOutbox : public Outbox {
 public:
  void send(const json& m) override { (void)to_wire(m); }
};

// Parses `data` as one message and also feeds it, line by line, to an initialized server.
inline void fuzz_one_message(std::string_view data) {
  (void)parse_message(data);
  static Server* server = [] {
    Config cfg;
    Environment py;
    py.name = "python";
    py.command = {"/usr/bin/python3"};
    py.limits.timeout_seconds = 1;
    cfg.environments["python"] = py;
    return new Server(cfg, std::make_shared<FakeExecutor>(), ServerOptions{});
  }();
  auto conn = server->connect();
  auto out = std::make_shared<DiscardOutbox>();
  server->handle_raw(conn, R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})", out);
  std::size_t start = 0;
  while (start <= data.size()) {
    std::size_t nl = data.find('\n', start);
    std::string_view line = data.substr(start, nl == std::string_view::npos ? nl : nl - start);
    // The fake's "sleep" would block a worker until its timeout; keep fuzzing fast.
    if (line.find("sleep") == std::string_view::npos) server->handle_raw(conn, line, out);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  server->wait_idle();
  server->disconnect(conn);
}

}  // namespace paddock::mcp
