// The tiny part of the DNS wire format (RFC 1035) the sandbox's resolver needs: parse a query
// with one question, build a reply with at most one A record. Pure: no syscalls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/address.h"

namespace paddock::net {

inline constexpr std::uint16_t kDnsTypeA = 1;
inline constexpr std::uint16_t kDnsTypeAAAA = 28;
inline constexpr std::uint16_t kDnsClassIN = 1;

enum class DnsRcode : std::uint8_t { NoError = 0, FormErr = 1, ServFail = 2, NxDomain = 3, NotImp = 4, Refused = 5 };

struct DnsQuery {
  std::uint16_t id = 0;
  std::uint16_t flags = 0;
  std::string name;  // lowercase, dot-separated, no trailing dot; raw label bytes otherwise
  std::uint16_t qtype = 0;
  std::uint16_t qclass = 0;
  std::size_t question_end = 0;  // offset just past the question
};

// nullopt if the message is not a standard query with exactly one uncompressed question.
std::optional<DnsQuery> parse_dns_query(const std::uint8_t* msg, std::size_t len);

// A reply to `q` (whose bytes are `msg`): the question echoed, and one A record when `a` is set.
std::vector<std::uint8_t> build_dns_reply(const std::uint8_t* msg, const DnsQuery& q, DnsRcode rcode,
                                          const std::optional<IpAddr>& a, std::uint32_t ttl);
// A header-only reply (FORMERR, NOTIMP) for messages parse_dns_query refused; empty if the
// message is too short to carry an id, or is itself a response.
std::vector<std::uint8_t> build_dns_error(const std::uint8_t* msg, std::size_t len, DnsRcode rcode);

}  // namespace paddock::net
