#include "net/host_rule.h"

#include <cctype>

namespace paddock::net {
namespace {

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t label = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      if (label == 0 || label > 63) return false;
      label = 0;
      continue;
    }
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
    ++label;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::uint16_t> parse_port(std::string_view s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

}  // namespace

std::optional<std::pair<std::string, std::uint16_t>> split_host_port(std::string_view s) {
  if (!s.empty() && s.front() == '[') {
    auto close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string host(s.substr(1, close - 1));
    auto rest = s.substr(close + 1);
    if (rest.empty()) return std::make_pair(host, std::uint16_t{0});
    if (rest.front() != ':') return std::nullopt;
    auto port = parse_port(rest.substr(1));
    if (!port) return std::nullopt;
    return std::make_pair(host, *port);
  }
  auto colon = s.rfind(':');
  // More than one colon without brackets: a bare IPv6 literal (or CIDR), no port.
  if (colon == std::string_view::npos || s.find(':') != colon) {
    return std::make_pair(std::string(s), std::uint16_t{0});
  }
  auto port = parse_port(s.substr(colon + 1));
  if (!port) return std::nullopt;
  return std::make_pair(std::string(s.substr(0, colon)), *port);
}

std::string join_host_port(std::string_view host, std::uint16_t port) {
  std::string h(host);
  if (port == 0) return h;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  return h + ":" + std::to_string(port);
}

bool looks_like_url(std::string_view text) {
  const auto sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0) return false;
  for (std::size_t i = 0; i < sep; ++i) {
    const char c = text[i];
    const bool ok = std::isalpha(static_cast<unsigned char>(c)) ||
                    (i > 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'));
    if (!ok) return false;
  }
  return true;
}

Result<std::string> rule_from_url(std::string_view url, std::string* unenforced) {
  if (unenforced) unenforced->clear();
  if (!looks_like_url(url)) return make_error("not a URL", std::string(url));
  std::string_view rest = url.substr(url.find("://") + 3);
  const std::size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  const std::string_view tail = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (authority.find('@') != std::string_view::npos) {
    return make_error("a URL with a user name or password", std::string(url),
                      "write the host alone (an allowlist names hosts; keep credentials out of command lines)");
  }
  auto hp = split_host_port(authority);
  if (!hp || hp->first.empty() || !canonical_host(hp->first)) {
    return make_error("no valid host in this URL", std::string(url), "write the host, e.g. --allow-domain example.com");
  }
  if (unenforced && !tail.empty() && tail != "/") *unenforced = "the path " + std::string(tail);
  return join_host_port(*canonical_host(hp->first), hp->second);
}

std::optional<std::string> canonical_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (auto ip = IpAddr::parse(host)) return ip->to_string();
  std::string name = lower(host);
  if (!valid_name(name)) return std::nullopt;
  // A name made only of digits and dots is an address in some other notation ("2130706433",
  // "127.1"): refuse it rather than guess what a resolver would make of it.
  bool digits_only = true;
  for (char c : name) digits_only = digits_only && ((c >= '0' && c <= '9') || c == '.');
  if (digits_only) return std::nullopt;
  return name;
}

Result<HostRule> HostRule::parse(std::string_view text) {
  HostRule r;
  r.text = std::string(text);
  auto bad = [&](const std::string& what) {
    return make_error(what, "network rule \"" + r.text + "\"",
                      "write a host (example.com), a wildcard (*.example.com), an address or range "
                      "(10.0.0.0/8), optionally followed by :PORT");
  };
  if (looks_like_url(text)) {
    // A URL where a host was meant: say which host, rather than "invalid port".
    auto host = rule_from_url(text);
    return make_error("a URL, not a host", "network rule \"" + r.text + "\"",
                      host ? "write the host: " + *host : "write the host, e.g. example.com");
  }
  auto split = split_host_port(text);
  if (!split) return bad("invalid port");
  auto [host, port] = *split;
  r.port = port;
  if (host == "*") {
    r.kind = Kind::Any;
    return r;
  }
  if (host.find('/') != std::string::npos || IpAddr::parse(host)) {
    auto cidr = Cidr::parse(host);
    if (!cidr) return bad("invalid address or range");
    r.kind = Kind::Address;
    r.cidr = *cidr;
    return r;
  }
  if (host.rfind("*.", 0) == 0) {
    auto name = canonical_host(host.substr(2));
    if (!name || IpAddr::parse(*name)) return bad("invalid domain after \"*.\"");
    r.kind = Kind::Suffix;
    r.name = *name;
    return r;
  }
  if (host.find('*') != std::string::npos) return bad("\"*\" is only allowed as a leading \"*.\"");
  auto name = canonical_host(host);
  if (!name) return bad("invalid host name");
  r.kind = *name == "localhost" ? Kind::Loopback : Kind::Name;
  r.name = *name;
  return r;
}

bool HostRule::host_matches(std::string_view host) const {
  auto ip = IpAddr::parse(host);
  switch (kind) {
    case Kind::Any: return !ip || !special_range(*ip);
    case Kind::Address: return ip && cidr.contains(*ip);
    case Kind::Name: return !ip && host == name;
    case Kind::Loopback: return ip ? address_matches(*ip) : host == name;
    case Kind::Suffix:
      return !ip && host.size() > name.size() + 1 && host.ends_with(name) &&
             host[host.size() - name.size() - 1] == '.';
  }
  return false;
}

bool HostRule::address_matches(const IpAddr& a) const {
  switch (kind) {
    case Kind::Address: return cidr.contains(a);
    case Kind::Loopback: return a == *IpAddr::parse("127.0.0.1") || a == *IpAddr::parse("::1");
    default: return false;
  }
}

bool HostRule::loopback_only() const {
  if (kind == Kind::Loopback) return true;
  if (kind != Kind::Address) return false;
  static const Cidr v4 = *Cidr::parse("127.0.0.0/8");
  static const Cidr v6 = *Cidr::parse("::1");
  const Cidr& within = cidr.base.family == AF_INET ? v4 : v6;
  return cidr.prefix >= within.prefix && within.contains(cidr.base);
}

std::string portless_loopback_note(const HostRule& allow) {
  if (allow.port != 0 || !allow.loopback_only()) return {};
  std::string host = allow.kind == HostRule::Kind::Loopback ? allow.name : allow.cidr.to_string();
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return allow.text + " has no port: it opens every port through the proxy, but programs that "
         "connect to " + (allow.kind == HostRule::Kind::Loopback ? "localhost" : "loopback") +
         " directly get through only on ports a rule names: write " + host + ":PORT";
}

}  // namespace paddock::net
