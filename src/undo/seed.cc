#include "undo/seed.h"

#include <cstring>

#include "sys/binary_codec.h"
#include "sys/checksum.h"
#include "undo/store.h"

namespace paddock::undo {
namespace {

// kMagic, then little-endian fields (sys/binary_codec.h; str: u32 length and bytes):
//   str session, u32 n, u32 roots; per root:
//     str root, i64 started, u32 excludes (u8 kind, str pattern, str why), u32 notes (str),
//     u64 entries; per entry, in path order:
//       u16 bytes shared with the previous entry's path, str the rest,
//       u8 type, u32 mode, u64 size, i64 mtime, i64 ctime, u64 ino, u64 dev, u32 uid, u32 gid,
//       hash (u8 0: none; 1: 32 bytes, a SHA-256 as hex; 2: str), str target;
//   u64 checksum64 (sys/checksum.h) of everything before it.
constexpr std::string_view kMagic = "paddock-undo-seed 1\n";
constexpr std::uint64_t kMaxEntries = 1u << 28;

bool valid_type(std::uint8_t t) { return t <= static_cast<std::uint8_t>(EntryType::Other); }

constexpr char kHex[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// An object's name (64 lowercase hex digits) as its 32 bytes; anything else as it is.
void put_hash(sys::BinaryWriter& w, const std::string& h) {
  if (h.empty()) return w.u8(0);
  char raw[32];
  bool hex = h.size() == 64;
  for (std::size_t i = 0; hex && i < 32; ++i) {
    const int a = hex_value(h[2 * i]), b = hex_value(h[2 * i + 1]);
    hex = a >= 0 && b >= 0;
    raw[i] = static_cast<char>(a << 4 | b);
  }
  if (hex) {
    w.u8(1);
    w.bytes(std::string_view(raw, 32));
  } else {
    w.u8(2);
    w.str(h);
  }
}

bool get_hash(sys::BinaryReader& r, std::string& h) {
  std::uint8_t tag;
  std::string_view v;
  if (!r.u8(tag)) return false;
  if (tag == 0) return true;
  if (tag == 2) {
    if (!r.str(v)) return false;
    h.assign(v);
    return true;
  }
  if (tag != 1 || !r.bytes(32, v)) return false;
  h.resize(64);
  for (std::size_t i = 0; i < 32; ++i) {
    const auto b = static_cast<unsigned char>(v[i]);
    h[2 * i] = kHex[b >> 4];
    h[2 * i + 1] = kHex[b & 15];
  }
  return true;
}

}  // namespace

std::string seed_name(const std::vector<std::string>& roots) {
  std::uint64_t h = sys::fnv1a("roots");
  for (const std::string& r : roots) h = sys::fnv1a(std::string_view(r.c_str(), r.size() + 1), h);
  static const char* hex = "0123456789abcdef";
  std::string name(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) name[static_cast<std::size_t>(i)] = hex[h & 15];
  return name;
}

std::string serialize_seed(const Seed& s) {
  sys::BinaryWriter w;
  std::size_t entries = 0;
  for (const RootManifest& r : s.manifest.roots) entries += r.entries.size();
  w.out.reserve(4096 + entries * 96);
  w.bytes(kMagic);
  w.str(s.session);
  w.u32(static_cast<std::uint32_t>(s.n));
  w.u32(static_cast<std::uint32_t>(s.manifest.roots.size()));
  for (const RootManifest& r : s.manifest.roots) {
    w.str(r.root);
    w.i64(r.started_ns);
    w.u32(static_cast<std::uint32_t>(r.excludes.size()));
    for (const Exclude& e : r.excludes) {
      w.u8(e.kind == Exclude::Kind::Path ? 1 : 0);
      w.str(e.pattern);
      w.str(e.why);
    }
    w.u32(static_cast<std::uint32_t>(r.notes.size()));
    for (const std::string& n : r.notes) w.str(n);
    w.u64(r.entries.size());
    std::string_view prev;
    for (const ManifestEntry& e : r.entries) {
      std::size_t shared = 0;
      while (shared < prev.size() && shared < e.path.size() && shared < 0xffff && prev[shared] == e.path[shared]) ++shared;
      w.u16(static_cast<std::uint16_t>(shared));
      w.str(std::string_view(e.path).substr(shared));
      w.u8(static_cast<std::uint8_t>(e.st.type));
      w.u32(e.st.mode);
      w.u64(e.st.size);
      w.i64(e.st.mtime_ns);
      w.i64(e.st.ctime_ns);
      w.u64(e.st.ino);
      w.u64(e.st.dev);
      w.u32(e.st.uid);
      w.u32(e.st.gid);
      put_hash(w, e.hash);
      w.str(e.target);
      prev = e.path;
    }
  }
  w.u64(sys::checksum64(w.out));
  return std::move(w.out);
}

Result<Seed> parse_seed(std::string_view all, const std::string& where) {
  auto bad = [&](const char* what) { return make_error(std::string("seed: ") + what, where); };
  if (all.size() < kMagic.size() + 8 || all.substr(0, kMagic.size()) != kMagic) return bad("not a seed");
  const std::string_view body = all.substr(0, all.size() - 8);
  std::uint64_t sum;
  std::memcpy(&sum, all.data() + body.size(), sizeof sum);
  if (sum != sys::checksum64(body)) return bad("torn (checksum)");
  sys::BinaryReader r(body.substr(kMagic.size()));
  Seed s;
  std::string_view sv;
  std::uint32_t n, roots;
  if (!r.str(sv) || !r.u32(n) || !r.u32(roots) || n > 1000000000u) return bad("a bad header");
  s.session = std::string(sv);
  if (!valid_session_id(s.session)) return bad("a bad session id");
  s.n = static_cast<int>(n);
  for (std::uint32_t k = 0; k < roots; ++k) {
    RootManifest rm;
    std::uint32_t count;
    if (!r.str(sv)) return bad("a bad root");
    rm.root = std::string(sv);
    if (!r.i64(rm.started_ns) || !r.u32(count)) return bad("a bad root");
    for (std::uint32_t i = 0; i < count; ++i) {
      std::uint8_t kind;
      std::string_view pattern, why;
      if (!r.u8(kind) || kind > 1 || !r.str(pattern) || !r.str(why)) return bad("a bad exclude");
      rm.excludes.push_back({kind == 1 ? Exclude::Kind::Path : Exclude::Kind::Name, std::string(pattern), std::string(why)});
    }
    if (!r.u32(count)) return bad("a bad note");
    for (std::uint32_t i = 0; i < count; ++i) {
      if (!r.str(sv)) return bad("a bad note");
      rm.notes.emplace_back(sv);
    }
    std::uint64_t entries;
    if (!r.u64(entries) || entries > kMaxEntries || entries > body.size()) return bad("a bad entry count");
    rm.entries.reserve(static_cast<std::size_t>(entries));
    for (std::uint64_t i = 0; i < entries; ++i) {
      ManifestEntry e;
      std::uint16_t shared;
      std::uint8_t type;
      std::string_view rest, target;
      if (!r.u16(shared) || !r.str(rest)) return bad("a bad entry");
      const std::string* prev = rm.entries.empty() ? nullptr : &rm.entries.back().path;
      if (shared > 0 && (prev == nullptr || shared > prev->size())) return bad("a bad entry");
      e.path.reserve(shared + rest.size());
      if (shared > 0) e.path.assign(*prev, 0, shared);
      e.path.append(rest);
      if (!r.u8(type) || !valid_type(type) || !r.u32(e.st.mode) || !r.u64(e.st.size) || !r.i64(e.st.mtime_ns) ||
          !r.i64(e.st.ctime_ns) || !r.u64(e.st.ino) || !r.u64(e.st.dev) || !r.u32(e.st.uid) || !r.u32(e.st.gid) ||
          !get_hash(r, e.hash) || !r.str(target))
        return bad("a bad entry");
      e.st.type = static_cast<EntryType>(type);
      e.target = std::string(target);
      if (prev != nullptr && !path_less(*prev, e.path)) return bad("entries out of order");
      rm.entries.push_back(std::move(e));
    }
    s.manifest.roots.push_back(std::move(rm));
  }
  if (!r.done()) return bad("trailing bytes");
  return s;
}

}  // namespace paddock::undo
