#include "undo/manifest.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "undo/sha256.h"
#include "undo/store.h"

namespace paddock::undo {

const ManifestEntry* RootManifest::find(const std::string& path) const {
  if (by_path_.size() != entries.size()) index();
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &entries[it->second];
}

void RootManifest::index() const {
  by_path_.clear();
  by_path_.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) by_path_.emplace(entries[i].path, i);
}

const RootManifest* Manifest::find_root(const std::string& root) const {
  for (const auto& r : roots) {
    if (r.root == root) return &r;
  }
  return nullptr;
}

bool excluded(const std::vector<Exclude>& ex, const std::string& rel, const std::string& name) {
  for (const auto& e : ex) {
    if (e.kind == Exclude::Kind::Name ? e.pattern == name : rel_at_or_under(rel, e.pattern)) return true;
  }
  return false;
}

std::string escape_field(const std::string& s) {
  if (s.empty()) return "\\x";  // the empty path (the root) still takes a field
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x21 || c == 0x7f || c == '\\') {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result<std::string> unescape_field(std::string_view s) {
  if (s == "\\x") return std::string();
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (i + 3 >= s.size() || s[i + 1] != 'x') return make_error("a bad escape in \"" + std::string(s) + "\"");
    char hex[3] = {s[i + 2], s[i + 3], 0};
    char* end = nullptr;
    long v = std::strtol(hex, &end, 16);
    if (end != hex + 2) return make_error("a bad escape in \"" + std::string(s) + "\"");
    out += static_cast<char>(v);
    i += 3;
  }
  return out;
}

std::string serialize_manifest(const Manifest& m) {
  std::string out = "paddock-undo-manifest " + std::to_string(kManifestVersion) + "\n";
  std::size_t count = 0;
  for (const auto& r : m.roots) {
    out += "root " + escape_field(r.root) + "\n";
    out += "started " + std::to_string(r.started_ns) + "\n";
    for (const auto& e : r.excludes) {
      out += std::string("exclude ") + (e.kind == Exclude::Kind::Name ? "name " : "path ") + escape_field(e.pattern) +
             " " + escape_field(e.why) + "\n";
    }
    for (const auto& n : r.notes) out += "note " + escape_field(n) + "\n";
    for (const auto& e : r.entries) {
      append_entry(out, e);
      ++count;
    }
  }
  out += "end " + std::to_string(count) + "\n";
  return out;
}

namespace {

// Splits LINE at spaces into F (reused from line to line: no allocation per field).
// The lines of a file written whole, each ending in '\n'. next() is false at the end, and also
// when the last line has none: then torn() (the file was cut while written).
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view& line, std::size_t& line_no) {
    if (pos_ >= text_.size()) return false;
    ++line_no;
    const std::size_t nl = text_.find('\n', pos_);
    if (nl == std::string_view::npos) {
      torn_ = true;
      return false;
    }
    line = text_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return true;
  }
  bool torn() const { return torn_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  bool torn_ = false;
};

void split_spaces(std::string_view line, std::vector<std::string_view>& f) {
  f.clear();
  std::size_t i = 0;
  while (i <= line.size()) {
    std::size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    f.push_back(line.substr(i, j - i));
    i = j + 1;
  }
}

bool parse_u64(std::string_view s, unsigned long long& v, int base = 10) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_i64(std::string_view s, long long& v) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

// Paths are clean: no "." or ".." component, no empty component (a restore writes them).
bool clean_path(std::string_view p) {
  if (p.empty()) return true;
  for (std::size_t i = 0; i <= p.size();) {
    std::size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view c = p.substr(i, j - i);
    if (c.empty() || c == "." || c == "..") return false;
    i = j + 1;
  }
  return true;
}

}  // namespace

Result<ManifestEntry> parse_entry_fields(const std::vector<std::string_view>& f, std::size_t first) {
  // f[first] is "e"; then type, mode, size, mtime, ctime, ino, dev, uid, gid, object, path[, target].
  const std::size_t n = f.size() - first;
  if (n != 12 && n != 13) return make_error("a bad entry");
  auto at = [&](std::size_t i) { return f[first + i]; };
  ManifestEntry e;
  if (at(1).size() != 1 || std::strchr("fdlpo", at(1)[0]) == nullptr) return make_error("a bad entry type");
  e.st.type = static_cast<EntryType>(at(1)[0]);
  unsigned long long mode, size, ino, dev, uid, gid;
  long long mt, ct;
  if (!parse_u64(at(2), mode, 8) || mode > 07777 || !parse_u64(at(3), size) || !parse_i64(at(4), mt) ||
      !parse_i64(at(5), ct) || !parse_u64(at(6), ino) || !parse_u64(at(7), dev) || !parse_u64(at(8), uid) ||
      !parse_u64(at(9), gid) || uid > 0xffffffffull || gid > 0xffffffffull) {
    return make_error("a bad entry");
  }
  e.st.mode = static_cast<mode_t>(mode);
  e.st.size = size;
  e.st.mtime_ns = mt;
  e.st.ctime_ns = ct;
  e.st.ino = ino;
  e.st.dev = dev;
  e.st.uid = static_cast<unsigned>(uid);
  e.st.gid = static_cast<unsigned>(gid);
  if (at(10) != "-") {
    if (!is_hash_hex(at(10))) return make_error("a bad object name");
    e.hash = at(10);
  }
  if ((e.st.type == EntryType::File) != !e.hash.empty()) return make_error("a file entry without an object, or the reverse");
  auto p = unescape_field(at(11));
  if (!p) return std::move(p).take_error();
  e.path = std::move(*p);
  if (e.st.type == EntryType::Symlink) {
    if (n != 13) return make_error("a symlink without a target");
    auto t = unescape_field(at(12));
    if (!t) return std::move(t).take_error();
    e.target = std::move(*t);
  } else if (n != 12) {
    return make_error("an extra field");
  }
  if (!clean_path(e.path)) return make_error("an unsafe path \"" + e.path + "\"");
  return e;
}

void append_entry(std::string& out, const ManifestEntry& e) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "e %c %04o %llu %lld %lld %llu %llu %u %u ", static_cast<char>(e.st.type),
                static_cast<unsigned>(e.st.mode), static_cast<unsigned long long>(e.st.size),
                static_cast<long long>(e.st.mtime_ns), static_cast<long long>(e.st.ctime_ns),
                static_cast<unsigned long long>(e.st.ino), static_cast<unsigned long long>(e.st.dev), e.st.uid,
                e.st.gid);
  out += buf;
  out += e.hash.empty() ? "-" : e.hash;
  out += ' ';
  out += escape_field(e.path);
  if (e.st.type == EntryType::Symlink) {
    out += ' ';
    out += escape_field(e.target);
  }
  out += '\n';
}

Result<Manifest> parse_manifest(const std::string& text, const std::string& where) {
  Manifest m;
  std::size_t line_no = 0, count = 0;
  bool ended = false;
  std::vector<std::string_view> f;
  auto bad = [&](const std::string& what) { return make_error(what, where + ":" + std::to_string(line_no)); };
  LineReader lines{text};
  std::string_view line;
  while (lines.next(line, line_no)) {
    if (ended) return bad("text after the end line");
    split_spaces(line, f);
    if (line_no == 1) {
      if (f.size() != 2 || f[0] != "paddock-undo-manifest") return bad("not an undo manifest");
      unsigned long long v;
      if (!parse_u64(f[1], v)) return bad("not an undo manifest");
      if (v > static_cast<unsigned long long>(kManifestVersion)) {
        return make_error("manifest format " + std::string(f[1]) + " is newer than this paddock understands (" +
                              std::to_string(kManifestVersion) + ")",
                          where, "use a newer paddock");
      }
      continue;
    }
    if (f[0] == "root" && f.size() == 2) {
      auto r = unescape_field(f[1]);
      if (!r) return bad(r.error().message);
      m.roots.push_back({});
      m.roots.back().root = *r;
    } else if (m.roots.empty() && f[0] != "end") {
      return bad("an entry before any root");
    } else if (f[0] == "started" && f.size() == 2) {
      long long v;
      if (!parse_i64(f[1], v)) return bad("a bad start time");
      m.roots.back().started_ns = v;
    } else if (f[0] == "exclude" && f.size() == 4) {
      Exclude e;
      if (f[1] == "name") e.kind = Exclude::Kind::Name;
      else if (f[1] == "path") e.kind = Exclude::Kind::Path;
      else return bad("a bad exclude kind \"" + std::string(f[1]) + "\"");
      auto p = unescape_field(f[2]);
      auto w = unescape_field(f[3]);
      if (!p || !w) return bad("a bad exclude");
      e.pattern = *p;
      e.why = *w;
      m.roots.back().excludes.push_back(std::move(e));
    } else if (f[0] == "note" && f.size() == 2) {
      auto n = unescape_field(f[1]);
      if (!n) return bad(n.error().message);
      m.roots.back().notes.push_back(*n);
    } else if (f[0] == "e") {
      auto e = parse_entry_fields(f, 0);
      if (!e) return bad(e.error().message);
      // In path order, each path once: restores and scans merge manifests in that order.
      auto& entries = m.roots.back().entries;
      if (!entries.empty() && !path_less(entries.back().path, e->path)) return bad("an entry out of order");
      entries.push_back(std::move(*e));
      ++count;
    } else if (f[0] == "end" && f.size() == 2) {
      unsigned long long n;
      if (!parse_u64(f[1], n) || n != count) return bad("the entry count does not match (torn or edited)");
      ended = true;
    } else {
      return bad("an unknown line \"" + std::string(line.substr(0, 40)) + "\"");
    }
  }
  if (lines.torn()) return bad("the file ends in the middle of a line (torn)");
  if (!ended) return make_error("no end line (torn)", where);
  return m;
}

bool same_full_entry(const ManifestEntry& a, const ManifestEntry& b) {
  const FileStat &x = a.st, &y = b.st;
  return a.path == b.path && a.hash == b.hash && a.target == b.target && x.type == y.type && x.mode == y.mode &&
         x.size == y.size && x.mtime_ns == y.mtime_ns && x.ctime_ns == y.ctime_ns && x.ino == y.ino && x.dev == y.dev &&
         x.uid == y.uid && x.gid == y.gid;
}

const ManifestEntry* find_sorted(const RootManifest& r, const std::string& path) {
  auto it = std::lower_bound(r.entries.begin(), r.entries.end(), path,
                             [](const ManifestEntry& e, const std::string& p) { return path_less(e.path, p); });
  return it != r.entries.end() && it->path == path ? &*it : nullptr;
}

namespace {

RootManifest meta_of(const RootManifest& r) {
  RootManifest m;
  m.root = r.root;
  m.started_ns = r.started_ns;
  m.excludes = r.excludes;
  m.notes = r.notes;
  return m;
}

void append_meta(std::string& out, const RootManifest& r) {
  out += "root " + escape_field(r.root) + "\n";
  out += "started " + std::to_string(r.started_ns) + "\n";
  for (const auto& e : r.excludes) {
    out += std::string("exclude ") + (e.kind == Exclude::Kind::Name ? "name " : "path ") + escape_field(e.pattern) +
           " " + escape_field(e.why) + "\n";
  }
  for (const auto& n : r.notes) out += "note " + escape_field(n) + "\n";
}

}  // namespace

Delta make_delta(int base, const Manifest& a, const Manifest& b) {
  Delta d;
  d.base = base;
  static const RootManifest empty;
  for (const auto& rb : b.roots) {
    const RootManifest* ra = a.find_root(rb.root);
    if (ra == nullptr) ra = &empty;
    RootDelta rd;
    rd.meta = meta_of(rb);
    rd.entries = rb.entries.size();
    std::size_t i = 0, j = 0;
    while (i < ra->entries.size() || j < rb.entries.size()) {
      const ManifestEntry* ea = i < ra->entries.size() ? &ra->entries[i] : nullptr;
      const ManifestEntry* eb = j < rb.entries.size() ? &rb.entries[j] : nullptr;
      if (ea && eb && ea->path == eb->path) {
        if (!same_full_entry(*ea, *eb)) rd.changes.push_back({ea->path, *ea, *eb});
        ++i, ++j;
      } else if (ea && (!eb || path_less(ea->path, eb->path))) {
        rd.changes.push_back({ea->path, *ea, std::nullopt});
        ++i;
      } else {
        rd.changes.push_back({eb->path, std::nullopt, *eb});
        ++j;
      }
    }
    d.roots.push_back(std::move(rd));
  }
  return d;
}

std::string serialize_delta(const Delta& d) {
  std::string out;
  if (!d.base_session.empty()) {
    out = "paddock-undo-delta " + std::to_string(kCrossSessionDeltaVersion) + "\n";
    out += "base " + std::to_string(d.base) + " " + d.base_session + "\n";
  } else {
    out = "paddock-undo-delta " + std::to_string(kManifestVersion) + "\n";
    out += "base " + std::to_string(d.base) + "\n";
  }
  std::size_t count = 0;
  for (const auto& r : d.roots) {
    append_meta(out, r.meta);
    out += "entries " + std::to_string(r.entries) + "\n";
    for (const auto& c : r.changes) {
      if (c.before) {
        out += "- ";
        append_entry(out, *c.before);
      } else {
        out += "- none " + escape_field(c.path) + "\n";
      }
      if (c.after) {
        out += "+ ";
        append_entry(out, *c.after);
      } else {
        out += "+ none " + escape_field(c.path) + "\n";
      }
      ++count;
    }
  }
  out += "end " + std::to_string(count) + "\n";
  return out;
}

Result<Delta> parse_delta(const std::string& text, const std::string& where) {
  Delta d;
  std::size_t line_no = 0, count = 0;
  bool ended = false, have_base = false;
  int version = 0;
  std::vector<std::string_view> f;
  std::optional<DeltaChange> open;  // a "-" line waiting for its "+"
  auto bad = [&](const std::string& what) { return make_error(what, where + ":" + std::to_string(line_no)); };
  LineReader lines{text};
  std::string_view line;
  while (lines.next(line, line_no)) {
    if (ended) return bad("text after the end line");
    split_spaces(line, f);
    if (line_no == 1) {
      unsigned long long v;
      if (f.size() != 2 || f[0] != "paddock-undo-delta" || !parse_u64(f[1], v)) return bad("not an undo delta");
      if (v > static_cast<unsigned long long>(kCrossSessionDeltaVersion)) {
        return make_error("delta format " + std::string(f[1]) + " is newer than this paddock understands (" +
                              std::to_string(kCrossSessionDeltaVersion) + ")",
                          where, "use a newer paddock");
      }
      version = static_cast<int>(v);
      continue;
    }
    if (open && f[0] != "+") return bad("a change without its after line");
    if (f[0] == "base" && (f.size() == 2 || (f.size() == 3 && version >= kCrossSessionDeltaVersion)) && !have_base &&
        d.roots.empty()) {
      long long v;
      if (!parse_i64(f[1], v) || v < 0 || v > 1000000000) return bad("a bad base");
      d.base = static_cast<int>(v);
      if (f.size() == 3) {
        d.base_session = std::string(f[2]);
        if (!valid_session_id(d.base_session)) return bad("a bad base session");
      }
      have_base = true;
    } else if (!have_base && f[0] != "end") {
      return bad("no base line");
    } else if (f[0] == "root" && f.size() == 2) {
      auto r = unescape_field(f[1]);
      if (!r) return bad(r.error().message);
      d.roots.push_back({});
      d.roots.back().meta.root = *r;
    } else if (d.roots.empty() && f[0] != "end") {
      return bad("a line before any root");
    } else if (f[0] == "started" && f.size() == 2) {
      long long v;
      if (!parse_i64(f[1], v)) return bad("a bad start time");
      d.roots.back().meta.started_ns = v;
    } else if (f[0] == "exclude" && f.size() == 4) {
      Exclude e;
      if (f[1] == "name") e.kind = Exclude::Kind::Name;
      else if (f[1] == "path") e.kind = Exclude::Kind::Path;
      else return bad("a bad exclude kind");
      auto p = unescape_field(f[2]);
      auto w = unescape_field(f[3]);
      if (!p || !w) return bad("a bad exclude");
      e.pattern = *p;
      e.why = *w;
      d.roots.back().meta.excludes.push_back(std::move(e));
    } else if (f[0] == "note" && f.size() == 2) {
      auto n = unescape_field(f[1]);
      if (!n) return bad(n.error().message);
      d.roots.back().meta.notes.push_back(*n);
    } else if (f[0] == "entries" && f.size() == 2) {
      unsigned long long v;
      if (!parse_u64(f[1], v)) return bad("a bad entry count");
      d.roots.back().entries = v;
    } else if ((f[0] == "-" || f[0] == "+") && f.size() >= 3) {
      std::optional<ManifestEntry> e;
      std::string path;
      if (f[1] == "none" && f.size() == 3) {
        auto p = unescape_field(f[2]);
        if (!p) return bad(p.error().message);
        if (!clean_path(*p)) return bad("an unsafe path");
        path = *p;
      } else {
        auto pe = parse_entry_fields(f, 1);
        if (!pe) return bad(pe.error().message);
        path = pe->path;
        e = std::move(*pe);
      }
      if (f[0] == "-") {
        auto& ch = d.roots.back().changes;
        if (!ch.empty() && !path_less(ch.back().path, path)) return bad("a change out of order");
        open = DeltaChange{path, std::move(e), std::nullopt};
      } else {
        if (!open || open->path != path) return bad("an after line without its before line");
        if (!open->before && !e) return bad("a change from nothing to nothing");
        open->after = std::move(e);
        d.roots.back().changes.push_back(std::move(*open));
        open.reset();
        ++count;
      }
    } else if (f[0] == "end" && f.size() == 2) {
      unsigned long long n;
      if (!have_base || !parse_u64(f[1], n) || n != count) return bad("the change count does not match (torn or edited)");
      ended = true;
    } else {
      return bad("an unknown line \"" + std::string(line.substr(0, 40)) + "\"");
    }
  }
  if (lines.torn()) return bad("the file ends in the middle of a line (torn)");
  if (!ended) return make_error("no end line (torn)", where);
  return d;
}

Result<void> apply_delta(Manifest& m, const Delta& d, const std::string& where) {
  if (m.roots.size() != d.roots.size()) return make_error("the delta does not apply: other roots than its base", where);
  for (std::size_t k = 0; k < d.roots.size(); ++k) {
    RootManifest& r = m.roots[k];
    const RootDelta& rd = d.roots[k];
    if (r.root != rd.meta.root) return make_error("the delta does not apply: other roots than its base", where);
    // Only entries replaced (the common case): in place, by binary search.
    const bool in_place = std::all_of(rd.changes.begin(), rd.changes.end(), [&](const DeltaChange& c) {
      const ManifestEntry* e = c.before && c.after ? find_sorted(r, c.path) : nullptr;
      return e != nullptr && same_full_entry(*e, *c.before);
    });
    if (in_place && r.entries.size() == rd.entries) {
      for (const auto& c : rd.changes) {
        auto it = std::lower_bound(r.entries.begin(), r.entries.end(), c.path,
                                   [](const ManifestEntry& e, const std::string& p) { return path_less(e.path, p); });
        *it = *c.after;  // there: checked above
      }
      r.entries_changed();
      r.started_ns = rd.meta.started_ns;
      r.excludes = rd.meta.excludes;
      r.notes = rd.meta.notes;
      continue;
    }
    std::vector<ManifestEntry> out;
    out.reserve(r.entries.size() + rd.changes.size());
    std::size_t i = 0;
    for (const auto& c : rd.changes) {
      while (i < r.entries.size() && path_less(r.entries[i].path, c.path)) out.push_back(std::move(r.entries[i++]));
      const bool there = i < r.entries.size() && r.entries[i].path == c.path;
      if (there != c.before.has_value() || (there && !same_full_entry(r.entries[i], *c.before))) {
        return make_error("the delta does not apply to its base (" + c.path + " differs): the chain is broken", where);
      }
      if (there) ++i;
      if (c.after) out.push_back(*c.after);
    }
    while (i < r.entries.size()) out.push_back(std::move(r.entries[i++]));
    if (out.size() != rd.entries) return make_error("the delta does not apply: the entry count differs", where);
    r.entries = std::move(out);
    r.entries_changed();
    r.started_ns = rd.meta.started_ns;
    r.excludes = rd.meta.excludes;
    r.notes = rd.meta.notes;
  }
  return {};
}

}  // namespace paddock::undo
