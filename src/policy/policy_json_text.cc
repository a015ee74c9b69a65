// policy_json_text: the policy JSON's text without building a JSON tree. nlohmann's dump(2)
// layout: two-space indent, ": " after keys, object keys sorted (its objects are std::maps),
// "[]"/"{}" for empty containers, control characters escaped, other UTF-8 passed through.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "paddock/sandbox.h"
#include "policy/policy_json.h"

namespace paddock {
namespace {

// nlohmann's UTF-8 rule: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

class Writer {
 public:
  explicit Writer(std::size_t reserve) { out_.reserve(reserve); }

  bool ok() const { return ok_; }
  std::string take() { return std::move(out_); }

  void begin(char open) {
    out_ += open;
    empty_[++depth_] = true;
  }
  void end(char close) {
    const bool was_empty = empty_[depth_--];
    if (!was_empty) newline();
    out_ += close;
  }
  // Starts the next element of the current array (or member of the current object).
  void item() {
    if (!empty_[depth_]) out_ += ',';
    empty_[depth_] = false;
    newline();
  }
  // A member name: the fixed names below are plain ASCII; env.set names go through string().
  void key(std::string_view k) {
    item();
    out_ += '"';
    out_ += k;
    out_ += "\": ";
  }
  void escaped_key(std::string_view k) {
    item();
    string(k);
    out_ += ": ";
  }
  void string(std::string_view s) {
    out_ += '"';
    // Runs of plain bytes are appended whole; only '"', '\\' and control bytes need escapes.
    std::size_t run = 0;
    bool ascii = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) ascii = false;
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s.data() + run, i - run);
      run = i + 1;
      escape(c);
    }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
    if (!ascii && !valid_utf8(s)) ok_ = false;
  }
  void boolean(bool b) { out_ += b ? "true" : "false"; }
  void number(std::uint64_t v) { out_ += std::to_string(v); }
  void raw(std::string_view s) { out_ += s; }

  void strings(const std::vector<std::string>& v) {
    begin('[');
    for (const auto& s : v) {
      item();
      string(s);
    }
    end(']');
  }

 private:
  void escape(unsigned char c) {
    switch (c) {
      case '"': out_ += "\\\""; return;
      case '\\': out_ += "\\\\"; return;
      case '\b': out_ += "\\b"; return;
      case '\f': out_ += "\\f"; return;
      case '\n': out_ += "\\n"; return;
      case '\r': out_ += "\\r"; return;
      case '\t': out_ += "\\t"; return;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out_.append(u, sizeof u);
      }
    }
  }

  void newline() {
    static constexpr char kIndent[] = "\n                ";  // deep enough for 8 levels
    out_.append(kIndent, 1 + static_cast<std::size_t>(depth_) * 2);
  }

  std::string out_;
  bool empty_[8] = {};  // per nesting level: nothing written yet (the policy nests 4 deep)
  int depth_ = 0;
  bool ok_ = true;
};

void write_limits(Writer& w, const Limits& l) {
  w.begin('{');
  auto u64 = [&w](const char* key, std::optional<std::uint64_t> v) {
    if (!v) return;
    w.key(key);
    w.number(*v);
  };
  // Sorted by key, as nlohmann writes them.
  if (l.best_effort) {
    w.key("best_effort");
    w.boolean(true);
  }
  if (l.core_dumps) {
    w.key("core_dumps");
    w.boolean(true);
  }
  if (l.cpu) {
    w.key("cpu");
    w.raw(nlohmann::json(*l.cpu).dump());  // nlohmann's own shortest round-trip form
  }
  u64("home_size_bytes", l.home_size_bytes);
  u64("max_file_size_bytes", l.max_file_size_bytes);
  u64("max_open_files", l.max_open_files);
  u64("memory_bytes", l.memory_bytes);
  u64("pids", l.pids);
  u64("pids_ceiling", l.pids_ceiling);
  if (l.timeout) u64("timeout_ms", static_cast<std::uint64_t>(l.timeout->count()));
  u64("tmp_size_bytes", l.tmp_size_bytes);
  u64("shm_size_bytes", l.shm_size_bytes);
  w.end('}');
}

// env.set as nlohmann's std::map makes it: sorted by name, the last value of a repeated name.
void write_env_set(Writer& w, const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::size_t> order(set.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return set[a].first < set[b].first; });
  w.begin('{');
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i + 1 < order.size() && set[order[i + 1]].first == set[order[i]].first) continue;
    w.escaped_key(set[order[i]].first);
    w.string(set[order[i]].second);
  }
  w.end('}');
}

// A little more than the text needs, so the buffer is allocated once.
std::size_t size_hint(const Policy& p) {
  std::size_t n = 1024 + p.cwd.size() + p.home.size() + p.user.size() + p.profile.size();
  for (const auto& r : p.paths)
    n += 224 + r.path.size() + r.given.size() + r.origin.detail.size() + r.symlink_target.size();
  for (const auto& d : p.denied) n += 64 + d.path.size() + d.reason.size();
  for (const auto& d : p.protected_paths) n += 96 + d.path.size() + d.reason.size();
  for (const auto& s : p.notes) n += 8 + s.size();
  for (const auto& s : p.network.allow_domains) n += 8 + s.size();
  for (const auto& s : p.network.deny_domains) n += 8 + s.size();
  for (const auto& s : p.env.pass) n += 8 + s.size();
  for (const auto& [k, v] : p.env.set) n += 16 + k.size() + v.size();
  return n;
}

}  // namespace

std::string policy_json_text(const Policy& p) {
  Writer w(size_hint(p));
  w.begin('{');
  w.key("cwd");
  w.string(p.cwd);

  w.key("denied");
  w.begin('[');
  for (const auto& d : p.denied) {
    w.item();
    w.begin('{');
    w.key("path");
    w.string(d.path);
    w.key("reason");
    w.string(d.reason);
    w.end('}');
  }
  w.end(']');

  w.key("env");
  w.begin('{');
  w.key("pass");
  w.strings(p.env.pass);
  w.key("set");
  write_env_set(w, p.env.set);
  w.end('}');

  w.key("home");
  w.string(p.home);
  w.key("limits");
  write_limits(w, p.limits);

  w.key("network");
  w.begin('{');
  w.key("allow");
  w.strings(p.network.allow_domains);
  w.key("deny");
  w.strings(p.network.deny_domains);
  w.key("mode");
  w.string(to_string(p.network.mode));
  w.end('}');

  w.key("notes");
  w.strings(p.notes);

  w.key("paths");
  w.begin('[');
  for (const auto& r : p.paths) {
    w.item();
    w.begin('{');
    w.key("access");
    w.string(to_string(r.access));
    w.key("given");
    w.string(r.given);
    w.key("optional");
    w.boolean(r.optional);
    w.key("origin");
    w.begin('{');
    w.key("detail");
    w.string(r.origin.detail);
    w.key("kind");
    w.string(origin_kind_name(r.origin.kind));
    w.end('}');
    w.key("path");
    w.string(r.path);
    if (!r.symlink_target.empty()) {
      w.key("symlink_target");
      w.string(r.symlink_target);
    }
    w.end('}');
  }
  w.end(']');

  w.key("profile");
  w.string(p.profile);

  w.key("protected");
  w.begin('[');
  for (const auto& d : p.protected_paths) {
    w.item();
    w.begin('{');
    w.key("exists");
    w.boolean(d.exists);
    w.key("path");
    w.string(d.path);
    w.key("reason");
    w.string(d.reason);
    w.end('}');
  }
  w.end(']');

  w.key("refuse_discarded_writes");
  w.boolean(p.refuse_discarded_writes);
  w.key("require_namespaces");
  w.boolean(p.require_namespaces);
  w.key("user");
  w.string(p.user);
  w.key("version");
  w.string(kPolicyJsonVersion);
  w.end('}');

  if (!w.ok()) return policy_to_json(p).dump(2);  // throws as it always did on invalid UTF-8
  return w.take();
}

}  // namespace paddock
