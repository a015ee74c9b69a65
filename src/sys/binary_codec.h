// Little-endian fields for paddock's own binary cache files (src/gate/dir_index.cc,
// src/undo/seed.cc): a writer that appends to a string and a reader that never reads past its end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace paddock::sys {

class BinaryWriter {
 public:
  void u8(std::uint8_t v) { raw(&v, sizeof v); }
  void u16(std::uint16_t v) { raw(&v, sizeof v); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void bytes(std::string_view s) { out.append(s); }
  // A string with its length first (32 bits).
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes(s);
  }
  std::string out;

 private:
  void raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
};

class BinaryReader {
 public:
  explicit BinaryReader(std::string_view s) : s_(s) {}
  bool u8(std::uint8_t& v) { return raw(&v, sizeof v); }
  bool u16(std::uint16_t& v) { return raw(&v, sizeof v); }
  bool u32(std::uint32_t& v) { return raw(&v, sizeof v); }
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool i64(std::int64_t& v) { return raw(&v, sizeof v); }
  bool bytes(std::size_t n, std::string_view& v) {
    if (s_.size() - pos_ < n) return false;
    v = s_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool str(std::string_view& v) {
    std::uint32_t n;
    return u32(n) && bytes(n, v);
  }
  std::size_t pos() const { return pos_; }
  bool done() const { return pos_ == s_.size(); }

 private:
  bool raw(void* p, std::size_t n) {
    if (s_.size() - pos_ < n) return false;
    std::memcpy(p, s_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace paddock::sys
