#include "net/dns_message.h"

namespace paddock::net {
namespace {

std::uint16_t get16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
void put16(std::vector<std::uint8_t>& v, std::uint16_t x) {
  v.push_back(static_cast<std::uint8_t>(x >> 8));
  v.push_back(static_cast<std::uint8_t>(x));
}

constexpr std::uint16_t kQr = 0x8000;
constexpr std::uint16_t kOpcodeMask = 0x7800;
constexpr std::uint16_t kRd = 0x0100;
constexpr std::uint16_t kRa = 0x0080;

}  // namespace

std::optional<DnsQuery> parse_dns_query(const std::uint8_t* msg, std::size_t len) {
  if (len < 12) return std::nullopt;
  DnsQuery q;
  q.id = get16(msg);
  q.flags = get16(msg + 2);
  if (q.flags & kQr) return std::nullopt;                // a response, not a query
  if ((q.flags & kOpcodeMask) != 0) return std::nullopt;  // only QUERY
  if (get16(msg + 4) != 1 || get16(msg + 6) != 0 || get16(msg + 8) != 0) return std::nullopt;
  std::size_t pos = 12;
  std::string name;
  while (true) {
    if (pos >= len) return std::nullopt;
    std::uint8_t l = msg[pos++];
    if (l == 0) break;
    if (l > 63) return std::nullopt;  // compression pointers have no place in a question
    if (pos + l > len || name.size() + l + 1 > 255) return std::nullopt;
    if (!name.empty()) name += '.';
    for (std::size_t i = 0; i < l; ++i) {
      char c = static_cast<char>(msg[pos + i]);
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      name += c;
    }
    pos += l;
  }
  if (pos + 4 > len) return std::nullopt;
  q.name = std::move(name);
  q.qtype = get16(msg + pos);
  q.qclass = get16(msg + pos + 2);
  q.question_end = pos + 4;
  return q;
}

std::vector<std::uint8_t> build_dns_reply(const std::uint8_t* msg, const DnsQuery& q, DnsRcode rcode,
                                          const std::optional<IpAddr>& a, std::uint32_t ttl) {
  std::vector<std::uint8_t> out;
  out.reserve(q.question_end + 16);
  put16(out, q.id);
  put16(out, static_cast<std::uint16_t>(kQr | (q.flags & kRd) | kRa | static_cast<std::uint16_t>(rcode)));
  bool answer = a && a->family == AF_INET && rcode == DnsRcode::NoError;
  put16(out, 1);
  put16(out, answer ? 1 : 0);
  put16(out, 0);
  put16(out, 0);
  out.insert(out.end(), msg + 12, msg + q.question_end);
  if (answer) {
    put16(out, 0xC00C);  // pointer to the question's name
    put16(out, kDnsTypeA);
    put16(out, kDnsClassIN);
    put16(out, static_cast<std::uint16_t>(ttl >> 16));
    put16(out, static_cast<std::uint16_t>(ttl));
    put16(out, 4);
    out.insert(out.end(), a->bytes.begin(), a->bytes.begin() + 4);
  }
  return out;
}

std::vector<std::uint8_t> build_dns_error(const std::uint8_t* msg, std::size_t len, DnsRcode rcode) {
  if (len < 4 || (get16(msg + 2) & kQr)) return {};
  std::vector<std::uint8_t> out;
  put16(out, get16(msg));
  std::uint16_t flags = get16(msg + 2);
  put16(out, static_cast<std::uint16_t>(kQr | (flags & (kOpcodeMask | kRd)) | kRa |
                                        static_cast<std::uint16_t>(rcode)));
  for (int i = 0; i < 4; ++i) put16(out, 0);
  return out;
}

}  // namespace paddock::net
