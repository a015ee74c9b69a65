// SHA-256 (FIPS 180-4), the name of every object in the undo store. Written from the standard;
// paddock links no crypto library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace paddock::undo {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<std::uint8_t, 32> digest();  // finishes: the object is spent afterwards
  std::string hex_digest();               // 64 lowercase hex digits

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;
  std::uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);
// True for 64 lowercase hex digits (what Sha256::hex_digest gives).
bool is_hash_hex(std::string_view s);

}  // namespace paddock::undo
