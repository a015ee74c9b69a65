// Persistent interpreters for sessions. Inside the session's sandbox a small launcher reads
// framed requests on stdin and answers on a separate pipe (so program output and replies never
// mix):
//   request:  "<code bytes>\n<code>"
//   reply:    "<exit> <stdout total> <stderr total> <stdout kept> <stderr kept>\n<stdout><stderr>"
// The launcher sends the program's stdout and stderr to files for the duration of each call
// (so subprocesses are captured too) and keeps at most the output limit of each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mcp/config.h"
#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::mcp {

struct ReplLauncher {
  std::vector<std::string> argv;
};
// The launcher for a built-in environment (user environments have no session support).
// reply_fd: the descriptor number the launcher answers on inside the sandbox.
Result<ReplLauncher> repl_launcher(const Environment& env, int reply_fd);

struct ReplReply {
  int exit_code = 0;
  std::uint64_t out_total = 0, err_total = 0;
  std::string out, err;
};

// The host side of the framing.
class ReplClient {
 public:
  ReplClient(sys::UniqueFd to_repl, sys::UniqueFd from_repl, std::uint64_t max_output);
  // Sends the code and waits for the reply; an error when the launcher is gone or misbehaves.
  Result<ReplReply> run(const std::string& code);

 private:
  sys::UniqueFd to_;
  sys::UniqueFd from_;
  std::uint64_t max_output_;
  std::string buffered_;
};

}  // namespace paddock::mcp
