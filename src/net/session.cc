#include "net/session.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstring>
#include <string>

#include "net/dns_message.h"
#include "net/host_rule.h"
#include "net/io.h"
#include "net/sniff.h"

namespace paddock::net {
namespace {

constexpr std::uint32_t kDnsTtl = 300;

Deadline handshake_deadline(const FilterCore& core) {
  return Deadline::in(core.options.handshake_timeout);
}

std::string blocked_text(const std::string& host, const Verdict& v) {
  std::string s = "[paddock] blocked by network policy: host " + host + " (" + v.reason + ")";
  if (!v.suggestion.empty()) s += "; allow with " + v.suggestion;
  return s + "\n";
}

std::string http_response(int code, const char* status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(code) + " " + status +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\nX-Paddock: network-policy\r\n\r\n" +
         body;
}

// Decides by name (and, after resolution, by address) and connects. On denial or failure it
// records the decision and returns an outcome without an fd; the caller answers the client.
struct Attempt {
  bool connected = false;
  bool denied = false;
  Verdict verdict;
  std::string error;
  sys::UniqueFd fd;
};

Attempt attempt(FilterCore& core, const std::string& raw_host, std::uint16_t port,
                const std::string& protocol) {
  Attempt a;
  auto canon = canonical_host(raw_host);
  std::string host = canon ? *canon : raw_host;
  Verdict v = core.policy.decide_host(host, port);
  if (!v.allowed) {
    core.log.record(host, port, protocol, v);
    core.counters.denied++;
    a.denied = true;
    a.verdict = v;
    return a;
  }
  // A loopback address that a "localhost" rule opened means the host's localhost: both loopback
  // addresses are tried, so a service listening on only one of them answers whichever the
  // client chose (each address is still decided on its own upstream).
  auto ip = IpAddr::parse(host);
  const bool localhost = ip && core.policy.localhost_allows(*ip, port);
  auto up = connect_upstream(core.policy, localhost ? "localhost" : host, port, core.resolve,
                             core.options.connect_timeout, core.stop_fd);
  switch (up.status) {
    case UpstreamOutcome::Status::Connected:
      core.log.record(host, port, protocol, v);
      core.counters.allowed++;
      a.connected = true;
      a.fd = std::move(up.fd);
      return a;
    case UpstreamOutcome::Status::Denied:
      core.log.record(host, port, protocol, up.verdict);
      core.counters.denied++;
      a.denied = true;
      a.verdict = up.verdict;
      return a;
    case UpstreamOutcome::Status::Failed:
      core.log.record(host, port, protocol, v);
      core.counters.upstream_failures++;
      a.error = up.error;
      return a;
  }
  return a;
}

void relay(FilterCore& core, sys::UniqueFd client, sys::UniqueFd upstream) {
  set_nodelay(client.get());
  Counters* c = &core.counters;
  core.relay.add(std::move(client), std::move(upstream), [c](std::uint64_t up, std::uint64_t down) {
    c->bytes_up += up;
    c->bytes_down += down;
  });
}

// ---- HTTP forward proxy and CONNECT ----

void handle_http(FilterCore& core, sys::UniqueFd client, std::string buf) {
  Deadline dl = handshake_deadline(core);
  HttpHead head;
  Parse st;
  while ((st = parse_http_head(buf, &head)) == Parse::Incomplete) {
    if (!read_some(client.get(), buf, 16384, dl, core.stop_fd)) return;
  }
  auto reply = [&](int code, const char* status, const std::string& body) {
    (void)write_all(client.get(), http_response(code, status, body), dl, core.stop_fd);
  };
  if (st == Parse::Bad) return reply(400, "Bad Request", "[paddock] malformed request\n");
  std::string rest = buf.substr(head.length);

  if (head.method == "CONNECT") {
    auto hp = split_host_port(head.target);
    if (!hp || hp->second == 0) {
      return reply(400, "Bad Request", "[paddock] CONNECT needs host:port\n");
    }
    Attempt a = attempt(core, hp->first, hp->second, "connect");
    if (a.denied) return reply(403, "Forbidden", blocked_text(hp->first, a.verdict));
    if (!a.connected) return reply(502, "Bad Gateway", "[paddock] " + a.error + "\n");
    if (!write_all(client.get(), "HTTP/1.1 200 Connection established\r\n\r\n", dl, core.stop_fd)) return;
    if (!rest.empty() && !write_all(a.fd.get(), rest, dl, core.stop_fd)) return;
    return relay(core, std::move(client), std::move(a.fd));
  }

  auto uri = parse_absolute_uri(head.target);
  if (!uri) {
    return reply(400, "Bad Request",
                 "[paddock] this is the sandbox's HTTP proxy: send absolute http:// URLs or use CONNECT\n");
  }
  // Domain fronting through plain HTTP: the Host header must name the host we connect to.
  if (const std::string* h = head.header("Host")) {
    auto hp = split_host_port(*h);
    auto hh = hp ? canonical_host(hp->first) : std::nullopt;
    auto uh = canonical_host(uri->host);
    if (!hh || !uh || *hh != *uh) {
      return reply(400, "Bad Request", "[paddock] the Host header does not match the request URL\n");
    }
  }
  Attempt a = attempt(core, uri->host, uri->port, "http");
  if (a.denied) return reply(403, "Forbidden", blocked_text(uri->host, a.verdict));
  if (!a.connected) return reply(502, "Bad Gateway", "[paddock] " + a.error + "\n");
  if (!write_all(a.fd.get(), rewrite_forward_head(head, *uri) + rest, dl, core.stop_fd)) return;
  relay(core, std::move(client), std::move(a.fd));
}

// ---- SOCKS5 (RFC 1928): no authentication, CONNECT only ----

enum : std::uint8_t {
  kSocksOk = 0, kSocksFail = 1, kSocksNotAllowed = 2, kSocksNetUnreach = 3, kSocksHostUnreach = 4,
  kSocksRefused = 5, kSocksCmdUnsupported = 7, kSocksAtypUnsupported = 8,
};

void handle_socks5(FilterCore& core, sys::UniqueFd client, std::string buf) {
  Deadline dl = handshake_deadline(core);
  int fd = client.get();
  int stop = core.stop_fd;
  if (!read_at_least(fd, buf, 2, dl, stop)) return;
  std::size_t nmethods = static_cast<std::uint8_t>(buf[1]);
  if (!read_at_least(fd, buf, 2 + nmethods, dl, stop)) return;
  bool no_auth = buf.substr(2, nmethods).find('\0') != std::string::npos;
  if (!write_all(fd, std::string("\x05", 1) + (no_auth ? '\0' : '\xff'), dl, stop) || !no_auth) return;
  buf.erase(0, 2 + nmethods);

  auto reply = [&](std::uint8_t code) {
    const char r[10] = {5, static_cast<char>(code), 0, 1, 0, 0, 0, 0, 0, 0};
    return write_all(fd, std::string_view(r, sizeof(r)), dl, stop);
  };
  if (!read_at_least(fd, buf, 5, dl, stop)) return;
  if (buf[0] != 5) return;
  std::uint8_t cmd = static_cast<std::uint8_t>(buf[1]);
  std::uint8_t atyp = static_cast<std::uint8_t>(buf[3]);
  std::size_t addr_len;
  std::size_t addr_off = 4;
  switch (atyp) {
    case 1: addr_len = 4; break;
    case 4: addr_len = 16; break;
    case 3:
      addr_len = static_cast<std::uint8_t>(buf[4]);
      addr_off = 5;
      break;
    default: (void)reply(kSocksAtypUnsupported); return;
  }
  if (!read_at_least(fd, buf, addr_off + addr_len + 2, dl, stop)) return;
  if (cmd != 1) {
    (void)reply(kSocksCmdUnsupported);
    return;
  }
  std::string host;
  if (atyp == 3) {
    host = buf.substr(addr_off, addr_len);
  } else {
    IpAddr ip;
    ip.family = atyp == 1 ? AF_INET : AF_INET6;
    std::memcpy(ip.bytes.data(), buf.data() + addr_off, addr_len);
    host = ip.to_string();
  }
  auto port = static_cast<std::uint16_t>(static_cast<std::uint8_t>(buf[addr_off + addr_len]) << 8 |
                                         static_cast<std::uint8_t>(buf[addr_off + addr_len + 1]));
  std::string rest = buf.substr(addr_off + addr_len + 2);
  Attempt a = attempt(core, host, port, "socks5");
  if (a.denied) {
    (void)reply(kSocksNotAllowed);
    return;
  }
  if (!a.connected) {
    (void)reply(a.error.rfind("cannot resolve", 0) == 0 ? kSocksHostUnreach : kSocksRefused);
    return;
  }
  if (!reply(kSocksOk)) return;
  if (!rest.empty() && !write_all(a.fd.get(), rest, dl, stop)) return;
  relay(core, std::move(client), std::move(a.fd));
}

}  // namespace

void handle_proxy(FilterCore& core, sys::UniqueFd client) {
  core.counters.connections++;
  std::string buf;
  if (!read_some(client.get(), buf, 1, handshake_deadline(core), core.stop_fd)) return;
  if (buf[0] == 0x05) return handle_socks5(core, std::move(client), std::move(buf));
  if (buf[0] == 0x04) return;  // SOCKS4 has no host names worth filtering; refuse by closing
  handle_http(core, std::move(client), std::move(buf));
}

void handle_transparent(FilterCore& core, sys::UniqueFd client) {
  core.counters.connections++;
  sockaddr_storage ss{};
  socklen_t sl = sizeof(ss);
  if (::getsockname(client.get(), reinterpret_cast<sockaddr*>(&ss), &sl) != 0) return;
  IpAddr local = IpAddr::from_sockaddr(reinterpret_cast<sockaddr*>(&ss));
  std::uint16_t port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                                     : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  std::optional<std::string> mapped = core.names.lookup(local);
  Deadline dl = handshake_deadline(core);
  std::string buf;
  std::optional<std::string> claimed;  // from the Host header or the SNI
  std::string protocol = "tcp";

  // Only for ports where the client speaks first: reading elsewhere would stall protocols such
  // as ssh whose server speaks first.
  if (port == 80) {
    protocol = "http-transparent";
    HttpHead head;
    Parse st;
    while ((st = parse_http_head(buf, &head)) == Parse::Incomplete) {
      if (!read_some(client.get(), buf, 16384, dl, core.stop_fd)) return;
    }
    if (st == Parse::Ok) {
      if (const std::string* h = head.header("Host")) {
        if (auto hp = split_host_port(*h)) claimed = hp->first;
      }
    }
  } else if (port == 443) {
    protocol = "tls";
    std::string sni;
    Parse st;
    while ((st = parse_tls_sni(reinterpret_cast<const std::uint8_t*>(buf.data()), buf.size(), &sni)) ==
           Parse::Incomplete) {
      if (buf.size() >= kMaxTlsRecord || !read_some(client.get(), buf, 16384, dl, core.stop_fd)) return;
    }
    if (st == Parse::Ok && !sni.empty()) claimed = sni;
  }

  auto deny = [&](const std::string& host, const Verdict& v) {
    core.log.record(host, port, protocol, v);
    core.counters.denied++;
    if (port == 80) {
      (void)write_all(client.get(), http_response(403, "Forbidden", blocked_text(host, v)), dl,
                      core.stop_fd);
    }
  };
  std::optional<std::string> claimed_canon = claimed ? canonical_host(*claimed) : std::nullopt;
  if (claimed && !claimed_canon) {
    Verdict v;
    v.why = Verdict::Why::InvalidHost;
    v.reason = "\"" + *claimed + "\" is not a valid host name";
    return deny(*claimed, v);
  }
  if (mapped && claimed_canon && *mapped != *claimed_canon) {
    Verdict v;
    v.why = Verdict::Why::InvalidHost;
    v.reason = "the connection went to the address of " + *mapped + " but asked for " + *claimed_canon;
    return deny(*claimed_canon, v);
  }
  std::string host;
  if (mapped) {
    host = *mapped;
  } else if (claimed_canon && !NameMap::in_range(local)) {
    host = *claimed_canon;  // a client that connected to 127.0.0.1:80/443 itself
  } else if (!NameMap::in_range(local)) {
    // A client that connected to an address itself (NO_PROXY has 127.0.0.1; Node's fetch ignores
    // proxies): the address is the target, decided as an IP literal, so only a rule naming that
    // address (or a range holding it) lets it through, as through the proxy (issue 13, bug 1).
    host = local.to_string();
  } else {
    Verdict v;
    v.why = Verdict::Why::NoRule;
    v.reason = "a direct connection to " + join_host_port(local.to_string(), port) +
               " with no host name (only names resolved through the sandbox's DNS are relayed)";
    return deny(local.to_string(), v);
  }
  Attempt a = attempt(core, host, port, protocol);
  if (a.denied) {
    if (port == 80) {
      (void)write_all(client.get(), http_response(403, "Forbidden", blocked_text(host, a.verdict)),
                      dl, core.stop_fd);
    }
    return;
  }
  if (!a.connected) {
    if (port == 80) {
      (void)write_all(client.get(), http_response(502, "Bad Gateway", "[paddock] " + a.error + "\n"),
                      dl, core.stop_fd);
    }
    return;
  }
  if (!buf.empty() && !write_all(a.fd.get(), buf, dl, core.stop_fd)) return;
  relay(core, std::move(client), std::move(a.fd));
}

void record_refusal(FilterCore& core, const RefusedConnection& refused) {
  core.counters.denied++;
  Verdict v;
  v.why = Verdict::Why::NoRule;
  std::string host;
  if (auto name = core.names.lookup(refused.addr)) {
    host = *name;
    v.reason = "a direct connection to " + join_host_port(host, refused.port) +
               " (its address in the sandbox, not the proxy) was refused: direct connections are "
               "taken only on ports 80, 443 and those rules name";
    v.suggestion = "--allow-domain " + join_host_port(host, refused.port);
  } else {
    host = refused.addr.to_string();
    v.reason = "connection refused inside the sandbox: nothing listens on " +
               join_host_port(host, refused.port) + " there, and no rule carries that port to the host";
    v.suggestion = allow_flag_for(host, refused.port);
  }
  core.log.record(host, refused.port, "tcp", v);
}

std::vector<std::uint8_t> answer_dns(FilterCore& core, const std::uint8_t* msg, std::size_t len) {
  core.counters.dns_queries++;
  auto q = parse_dns_query(msg, len);
  if (!q) return build_dns_error(msg, len, DnsRcode::FormErr);
  if (q->qclass != kDnsClassIN) return build_dns_reply(msg, *q, DnsRcode::NotImp, std::nullopt, 0);
  auto canon = canonical_host(q->name);
  if (!canon || IpAddr::parse(*canon)) {
    return build_dns_reply(msg, *q, DnsRcode::NxDomain, std::nullopt, 0);
  }
  Verdict v = core.policy.decide_host(*canon, 0);
  // Log each name once per verdict and type A (AAAA and other types follow the same verdict).
  if (q->qtype == kDnsTypeA || !v.allowed) core.log.record(*canon, 0, "dns", v);
  if (!v.allowed) return build_dns_reply(msg, *q, DnsRcode::NxDomain, std::nullopt, 0);
  if (q->qtype != kDnsTypeA) {
    // No IPv6 or other records: the name exists, the client falls back to A.
    return build_dns_reply(msg, *q, DnsRcode::NoError, std::nullopt, kDnsTtl);
  }
  auto addr = core.names.assign(*canon);
  if (!addr) return build_dns_reply(msg, *q, DnsRcode::ServFail, std::nullopt, 0);
  return build_dns_reply(msg, *q, DnsRcode::NoError, addr, kDnsTtl);
}

void handle_dns_tcp(FilterCore& core, sys::UniqueFd client) {
  std::string buf;
  while (true) {
    Deadline dl = handshake_deadline(core);
    if (!read_at_least(client.get(), buf, 2, dl, core.stop_fd)) return;
    std::size_t n = static_cast<std::uint8_t>(buf[0]) << 8 | static_cast<std::uint8_t>(buf[1]);
    if (!read_at_least(client.get(), buf, 2 + n, dl, core.stop_fd)) return;
    auto reply = answer_dns(core, reinterpret_cast<const std::uint8_t*>(buf.data()) + 2, n);
    buf.erase(0, 2 + n);
    if (reply.empty()) return;
    std::string out;
    out += static_cast<char>(reply.size() >> 8);
    out += static_cast<char>(reply.size() & 0xff);
    out.append(reinterpret_cast<const char*>(reply.data()), reply.size());
    if (!write_all(client.get(), out, dl, core.stop_fd)) return;
  }
}

}  // namespace paddock::net
