// Who may call `paddock mcp --http`: named bearer tokens, each with its own limits and scopes,
// read from a token file (docs/mcp.md#tokens). A request's Authorization header is matched
// against every token in constant time; the match names the caller for limits and metrics.
//
// The file: one token per line, `NAME TOKEN [max_concurrency=N] [calls_per_minute=N]
// [scope=mcp|metrics|mcp,metrics]`, `#` comments. A file holding only one bare token (the
// format before names existed) is the token "default" with both scopes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "paddock/result.h"

namespace paddock::mcp {

struct TokenLimits {
  unsigned max_concurrency = 0;   // tool calls in flight at once; 0 = only the server's own cap
  unsigned calls_per_minute = 0;  // tool calls admitted per minute (bursts up to this); 0 = no cap
};

struct Token {
  std::string name;
  std::string secret;
  TokenLimits limits;
  bool mcp = true;       // may use the MCP endpoint
  bool metrics = false;  // may read /metrics
};

class TokenSet {
 public:
  TokenSet() = default;
  explicit TokenSet(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}
  // One generated or legacy token, named "default", with both scopes.
  static TokenSet single(std::string secret);

  bool empty() const { return tokens_.empty(); }
  const std::vector<Token>& tokens() const { return tokens_; }
  // The token an Authorization header value ("Bearer X") carries, or nullptr. Every token is
  // compared in full, whichever matches, so timing tells nothing about any of them.
  const Token* match(std::string_view authorization) const;

 private:
  std::vector<Token> tokens_;
};

// Parses a token file's text; errors are "SOURCE:LINE:COL: ...".
Result<TokenSet> parse_token_file(std::string_view text, const std::string& source);
// Reads and parses a token file: a regular file (not a symlink) owned by this user, mode 0600 or
// stricter, at most 64 KiB; refused otherwise.
Result<TokenSet> read_token_file(const std::string& path);

}  // namespace paddock::mcp
