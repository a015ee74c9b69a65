// Recovering the intended host from the first bytes of a connection: an HTTP/1.x request head
// (proxy request line, Host header) and a TLS ClientHello (server_name). Pure: no syscalls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paddock::net {

enum class Parse { Incomplete, Ok, Bad };

struct HttpHead {
  std::string method, target, version;
  std::vector<std::pair<std::string, std::string>> headers;  // names as sent, values trimmed
  std::size_t length = 0;  // bytes up to and including the blank line

  const std::string* header(std::string_view name) const;  // case-insensitive, first match
};
inline constexpr std::size_t kMaxHttpHead = 64 * 1024;

// Parses an HTTP/1.x request head at the start of buf. Incomplete until "\r\n\r\n" (or "\n\n")
// arrives; Bad if malformed or longer than kMaxHttpHead.
Parse parse_http_head(std::string_view buf, HttpHead* out);

struct AbsoluteUri {
  std::string host;  // as written (brackets removed)
  std::uint16_t port = 80;
  std::string path;  // origin form: "/x?y" ("/" if empty)
};
// "http://host[:port][/path]" (the target of a forward-proxy request). Other schemes: nullopt.
std::optional<AbsoluteUri> parse_absolute_uri(std::string_view target);

// The request head to send upstream for a forward-proxy request: origin-form target, hop-by-hop
// proxy headers dropped, "Connection: close" so one client connection carries one request.
std::string rewrite_forward_head(const HttpHead& head, const AbsoluteUri& uri);

// The server_name of a TLS ClientHello at the start of buf. Ok with an empty name when the hello
// carries none; Bad when the bytes are not a TLS handshake record.
Parse parse_tls_sni(const std::uint8_t* buf, std::size_t len, std::string* sni);
inline constexpr std::size_t kMaxTlsRecord = 5 + 16384 + 2048;

}  // namespace paddock::net
