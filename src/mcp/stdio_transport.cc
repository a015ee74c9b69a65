#include "mcp/stdio_transport.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "sys/unique_fd.h"

namespace paddock::mcp {
namespace {

// All messages to one stdout, one line each, never interleaved.
class LineWriter : public Outbox {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}
  void send(const json& message) override {
    std::string line = to_wire(message);
    line += '\n';
    std::lock_guard lock(mu_);
    if (broken_) return;
    std::size_t off = 0;
    while (off < line.size()) {
      ssize_t n = sys::retry_eintr([&] { return ::write(fd_, line.data() + off, line.size() - off); });
      if (n <= 0) {
        broken_ = true;  // the client went away; the reader will see EOF
        return;
      }
      off += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
  std::mutex mu_;
  bool broken_ = false;
};

}  // namespace

void serve_stdio(Server& server, int in_fd, int out_fd, std::size_t max_line) {
  auto out = std::make_shared<LineWriter>(out_fd);
  auto conn = server.connect();
  std::string line;
  bool overlong = false;
  char buf[65536];
  for (;;) {
    ssize_t n = sys::retry_eintr([&] { return ::read(in_fd, buf, sizeof buf); });
    if (n <= 0) break;
    const char* p = buf;
    const char* end = buf + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      const char* stop = nl ? nl : end;
      if (!overlong) {
        line.append(p, stop);
        if (line.size() > max_line) {
          overlong = true;
          line.clear();
          line.shrink_to_fit();
        }
      }
      p = stop;
      if (!nl) break;
      ++p;  // past the newline: one message is complete
      if (overlong) {
        out->send(error_response(nullptr, rpc_error::kInvalidRequest,
                             "message too large (limit " + std::to_string(max_line) + " bytes)"));
        overlong = false;
      } else {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos) server.handle_raw(conn, line, out);
        line.clear();
      }
    }
  }
  // A final line without a newline still counts.
  if (!overlong && line.find_first_not_of(" \t\r") != std::string::npos)
    server.handle_raw(conn, line, out);
  // End of input: the client has said all it will. Calls already running finish and answer
  // (a client that wants them stopped cancels them or closes the process), then the client's
  // sessions are closed.
  server.wait_idle();
  server.disconnect(conn);
}

}  // namespace paddock::mcp
