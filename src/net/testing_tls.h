// Test-only: a hand-made TLS 1.3-style ClientHello record carrying a server_name, so the tests
// need no TLS library. Header-only; included by *_test.cc only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paddock::net::testing {

inline std::vector<std::uint8_t> client_hello(const std::string& sni) {
  auto put16 = [](std::vector<std::uint8_t>& v, std::size_t x) {
    v.push_back(static_cast<std::uint8_t>(x >> 8));
    v.push_back(static_cast<std::uint8_t>(x));
  };
  std::vector<std::uint8_t> ext;
  // supported_versions (TLS 1.3), to look like a real hello.
  put16(ext, 43);
  put16(ext, 3);
  ext.insert(ext.end(), {2, 0x03, 0x04});
  if (!sni.empty()) {
    put16(ext, 0);
    put16(ext, sni.size() + 5);
    put16(ext, sni.size() + 3);
    ext.push_back(0);
    put16(ext, sni.size());
    ext.insert(ext.end(), sni.begin(), sni.end());
  }
  std::vector<std::uint8_t> body;
  body.insert(body.end(), {0x03, 0x03});
  body.insert(body.end(), 32, 0x42);        // random
  body.push_back(0);                        // session id
  put16(body, 2);
  body.insert(body.end(), {0x13, 0x01});    // TLS_AES_128_GCM_SHA256
  body.insert(body.end(), {1, 0});          // compression: null
  put16(body, ext.size());
  body.insert(body.end(), ext.begin(), ext.end());
  std::vector<std::uint8_t> hs = {0x01, 0, 0, 0};
  hs[1] = static_cast<std::uint8_t>(body.size() >> 16);
  hs[2] = static_cast<std::uint8_t>(body.size() >> 8);
  hs[3] = static_cast<std::uint8_t>(body.size());
  hs.insert(hs.end(), body.begin(), body.end());
  std::vector<std::uint8_t> rec = {0x16, 0x03, 0x01};
  put16(rec, hs.size());
  rec.insert(rec.end(), hs.begin(), hs.end());
  return rec;
}

// A DNS query for one name (type A unless given).
inline std::vector<std::uint8_t> dns_query(std::uint16_t id, const std::string& name,
                                           std::uint16_t qtype = 1) {
  std::vector<std::uint8_t> q = {static_cast<std::uint8_t>(id >> 8), static_cast<std::uint8_t>(id),
                                 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    q.push_back(static_cast<std::uint8_t>(dot - start));
    q.insert(q.end(), name.begin() + static_cast<long>(start), name.begin() + static_cast<long>(dot));
    start = dot + 1;
  }
  q.push_back(0);
  q.insert(q.end(), {static_cast<std::uint8_t>(qtype >> 8), static_cast<std::uint8_t>(qtype), 0, 1});
  return q;
}

}  // namespace paddock::net::testing
