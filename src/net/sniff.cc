#include "net/sniff.h"

#include <strings.h>

namespace paddock::net {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool token_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '!' || c == '#' || c == '$' || c == '%' || c == '&' ||
         c == '\'' || c == '*' || c == '+' || c == '^' || c == '`' || c == '|' || c == '~';
}

}  // namespace

const std::string* HttpHead::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (iequals(k, name)) return &v;
  }
  return nullptr;
}

Parse parse_http_head(std::string_view buf, HttpHead* out) {
  std::size_t end = buf.find("\r\n\r\n");
  std::size_t term = 4;
  std::size_t lf = buf.find("\n\n");
  if (lf != std::string_view::npos && (end == std::string_view::npos || lf < end)) {
    end = lf;
    term = 2;
  }
  if (end == std::string_view::npos) {
    return buf.size() > kMaxHttpHead ? Parse::Bad : Parse::Incomplete;
  }
  if (end + term > kMaxHttpHead) return Parse::Bad;
  HttpHead h;
  h.length = end + term;
  std::string_view head = buf.substr(0, end);
  std::size_t nl = head.find('\n');
  std::string_view line = trim(head.substr(0, nl));
  auto sp1 = line.find(' ');
  auto sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return Parse::Bad;
  h.method = std::string(line.substr(0, sp1));
  h.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  h.version = std::string(line.substr(sp2 + 1));
  if (h.method.empty() || h.target.empty() || h.version.rfind("HTTP/1.", 0) != 0) return Parse::Bad;
  for (char c : h.method) {
    if (!token_char(c)) return Parse::Bad;
  }
  for (char c : h.target) {
    if (static_cast<unsigned char>(c) <= ' ') return Parse::Bad;
  }
  std::string_view rest = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
  while (!rest.empty()) {
    std::size_t e = rest.find('\n');
    std::string_view l = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 1);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty()) continue;
    if (l.front() == ' ' || l.front() == '\t') return Parse::Bad;  // obsolete line folding
    auto colon = l.find(':');
    if (colon == std::string_view::npos || colon == 0) return Parse::Bad;
    for (char c : l.substr(0, colon)) {
      if (!token_char(c)) return Parse::Bad;
    }
    h.headers.emplace_back(std::string(l.substr(0, colon)), std::string(trim(l.substr(colon + 1))));
  }
  *out = std::move(h);
  return Parse::Ok;
}

std::optional<AbsoluteUri> parse_absolute_uri(std::string_view target) {
  constexpr std::string_view kScheme = "http://";
  if (target.size() < kScheme.size() || !iequals(target.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  target.remove_prefix(kScheme.size());
  std::size_t slash = target.find_first_of("/?#");
  std::string_view authority = target.substr(0, slash);
  AbsoluteUri u;
  u.path = slash == std::string_view::npos ? "/" : std::string(target.substr(slash));
  if (u.path[0] != '/') u.path = "/" + u.path;
  if (auto at = u.path.find('#'); at != std::string::npos) u.path.resize(at);
  if (authority.find('@') != std::string_view::npos) return std::nullopt;  // no userinfo
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return std::nullopt;
  u.host = std::string(host);
  if (!port.empty()) {
    if (port.size() > 5) return std::nullopt;
    unsigned v = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v == 0 || v > 65535) return std::nullopt;
    u.port = static_cast<std::uint16_t>(v);
  }
  return u;
}

std::string rewrite_forward_head(const HttpHead& head, const AbsoluteUri& uri) {
  std::string out = head.method + " " + uri.path + " " + head.version + "\r\n";
  bool has_host = false;
  for (const auto& [k, v] : head.headers) {
    if (iequals(k, "Proxy-Connection") || iequals(k, "Proxy-Authorization") ||
        iequals(k, "Connection") || iequals(k, "Keep-Alive")) {
      continue;
    }
    if (iequals(k, "Host")) has_host = true;
    out += k + ": " + v + "\r\n";
  }
  if (!has_host) {
    std::string host = uri.host.find(':') != std::string::npos ? "[" + uri.host + "]" : uri.host;
    out += "Host: " + host + (uri.port == 80 ? "" : ":" + std::to_string(uri.port)) + "\r\n";
  }
  out += "Connection: close\r\n\r\n";
  return out;
}

Parse parse_tls_sni(const std::uint8_t* b, std::size_t len, std::string* sni) {
  sni->clear();
  if (len >= 1 && b[0] != 0x16) return Parse::Bad;  // not a handshake record
  if (len >= 2 && b[1] != 0x03) return Parse::Bad;
  if (len < 5) return Parse::Incomplete;
  std::size_t rec = static_cast<std::size_t>(b[3] << 8 | b[4]);
  if (rec == 0 || rec > 16384 + 2048) return Parse::Bad;
  if (len < 5 + rec) return Parse::Incomplete;
  const std::uint8_t* p = b + 5;
  const std::uint8_t* end = p + rec;
  auto need = [&](std::size_t n) { return static_cast<std::size_t>(end - p) >= n; };
  if (!need(4) || p[0] != 0x01) return Parse::Bad;  // ClientHello
  std::size_t hs = static_cast<std::size_t>(p[1] << 16 | p[2] << 8 | p[3]);
  p += 4;
  // A hello split across records is cut here; we read what this record holds.
  if (static_cast<std::size_t>(end - p) > hs) end = p + hs;
  if (!need(2 + 32)) return Parse::Ok;
  p += 2 + 32;  // legacy_version, random
  if (!need(1) || !need(1 + p[0])) return Parse::Ok;
  p += 1 + p[0];  // session id
  if (!need(2)) return Parse::Ok;
  std::size_t cs = static_cast<std::size_t>(p[0] << 8 | p[1]);
  if (!need(2 + cs)) return Parse::Ok;
  p += 2 + cs;
  if (!need(1) || !need(1 + p[0])) return Parse::Ok;
  p += 1 + p[0];  // compression methods
  if (!need(2)) return Parse::Ok;
  std::size_t ext_len = static_cast<std::size_t>(p[0] << 8 | p[1]);
  p += 2;
  if (static_cast<std::size_t>(end - p) > ext_len) end = p + ext_len;
  while (need(4)) {
    std::uint16_t type = static_cast<std::uint16_t>(p[0] << 8 | p[1]);
    std::size_t l = static_cast<std::size_t>(p[2] << 8 | p[3]);
    p += 4;
    if (!need(l)) return Parse::Ok;
    if (type == 0) {  // server_name
      const std::uint8_t* q = p;
      const std::uint8_t* qend = p + l;
      if (qend - q < 2) return Parse::Bad;
      q += 2;  // list length
      while (qend - q >= 3) {
        std::uint8_t name_type = q[0];
        std::size_t nl = static_cast<std::size_t>(q[1] << 8 | q[2]);
        q += 3;
        if (static_cast<std::size_t>(qend - q) < nl) return Parse::Bad;
        if (name_type == 0) {
          sni->assign(reinterpret_cast<const char*>(q), nl);
          return Parse::Ok;
        }
        q += nl;
      }
      return Parse::Bad;
    }
    p += l;
  }
  return Parse::Ok;
}

}  // namespace paddock::net
