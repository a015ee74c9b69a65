// The stdio transport: newline-delimited JSON-RPC on stdin/stdout. Nothing but protocol
// messages goes to stdout; logs go to stderr.
#pragma once

#include <cstddef>

#include "mcp/server.h"

namespace paddock::mcp {

// Serves one client until end of input, lets running calls finish, closes the client's
// sessions and returns. A line longer than `max_line` is answered with an error and skipped.
void serve_stdio(Server& server, int in_fd, int out_fd, std::size_t max_line = 8u << 20);

}  // namespace paddock::mcp
