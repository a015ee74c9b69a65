// Checksums for paddock's own cache files (src/gate/dir_index.cc, src/undo/seed.cc), which lie
// in paddock's state, out of every sandbox's reach: they detect a torn or damaged write, not an
// attacker. fnv1a for short strings (names, fingerprints); checksum64 for whole files, eight bytes
// per step on four independent lanes (the byte-serial FNV costs ~20 ms on a 14 MB file here).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace paddock::sys {

inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

inline std::uint64_t checksum64(std::string_view bytes) {
  constexpr std::uint64_t k = 0x9e3779b97f4a7c15ull;
  std::uint64_t lane[4] = {k, k ^ 1, k ^ 2, k ^ 3};
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  while (n >= 32) {
    for (auto& l : lane) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      l = (l ^ w) * 0xff51afd7ed558ccdull;
      l ^= l >> 29;
      p += 8;
    }
    n -= 32;
  }
  std::uint64_t h = fnv1a(std::string_view(p, n), bytes.size());
  for (auto l : lane) h = (h ^ l) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 31);
}

}  // namespace paddock::sys
