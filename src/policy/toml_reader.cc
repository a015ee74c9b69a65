#include "policy/toml_reader.h"

#include <algorithm>

#include "policy/did_you_mean.h"

namespace paddock {
namespace {

// "a positive integer", "an integer between 16 and 1048576": the integers WHAT may be.
std::string integer_range(std::int64_t min, std::int64_t max) {
  constexpr std::int64_t kLow = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kHigh = std::numeric_limits<std::int64_t>::max();
  if (max == kHigh) {
    if (min == kLow) return "an integer";
    if (min == 1) return "a positive integer";
    return "an integer of at least " + std::to_string(min);
  }
  if (min == kLow) return "an integer of at most " + std::to_string(max);
  return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
}

}  // namespace

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

Result<toml::table> TomlReader::parse(std::string_view text) const {
  try {
    return toml::parse(text, file_);
  } catch (const toml::parse_error& e) {
    return make_error(std::string(e.description()), at(e.source()));
  }
}

std::string TomlReader::at(const toml::source_region& r) const {
  return file_ + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

Error TomlReader::fail_where(std::string where, std::string message, std::string hint) {
  if (!error_) error_ = make_error(std::move(message), std::move(where), std::move(hint));
  return *error_;
}

Error TomlReader::fail_at(const toml::source_region& r, std::string message, std::string hint) {
  return fail_where(at(r), std::move(message), std::move(hint));
}

Error TomlReader::fail(const toml::node& n, std::string message, std::string hint) {
  return fail_at(n.source(), std::move(message), std::move(hint));
}

bool TomlReader::check_keys(const toml::table& t, std::string_view table, const std::vector<std::string>& known) {
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string msg;
    if (table.empty()) {
      msg = v.is_table() ? "unknown table [" + key + "]" : "unknown key \"" + key + "\"";
    } else {
      msg = "unknown key \"" + key + "\" in " + std::string(table);
    }
    fail_at(k.source(), msg, did_you_mean(key, known));
    return false;
  }
  return true;
}

const toml::table* TomlReader::table(const toml::table& t, std::string_view key, std::string_view what,
                                     std::string hint) {
  const toml::node* n = t.get(key);
  if (n == nullptr || failed()) return nullptr;
  if (!n->is_table()) {
    fail(*n, std::string(what) + " must be a table (got " + type_name(*n) + ")", std::move(hint));
    return nullptr;
  }
  return n->as_table();
}

std::optional<std::string> TomlReader::string(const toml::table& t, std::string_view key, std::string_view what) {
  const toml::node* n = t.get(key);
  if (n == nullptr || failed()) return std::nullopt;
  if (!n->is_string()) {
    fail(*n, std::string(what) + " must be a string (got " + type_name(*n) + ")");
    return std::nullopt;
  }
  return n->as_string()->get();
}

std::optional<bool> TomlReader::boolean(const toml::table& t, std::string_view key, std::string_view what) {
  const toml::node* n = t.get(key);
  if (n == nullptr || failed()) return std::nullopt;
  if (!n->is_boolean()) {
    fail(*n, std::string(what) + " must be true or false (got " + type_name(*n) + ")");
    return std::nullopt;
  }
  return n->as_boolean()->get();
}

std::optional<std::int64_t> TomlReader::integer(const toml::table& t, std::string_view key, std::string_view what,
                                                std::int64_t min, std::int64_t max) {
  const toml::node* n = t.get(key);
  if (n == nullptr || failed()) return std::nullopt;
  const auto* i = n->as_integer();
  if (i == nullptr || i->get() < min || i->get() > max) {
    std::string got = i != nullptr ? std::to_string(i->get()) : type_name(*n);
    fail(*n, std::string(what) + " must be " + integer_range(min, max) + " (got " + got + ")");
    return std::nullopt;
  }
  return i->get();
}

std::optional<std::vector<TomlString>> TomlReader::strings(const toml::table& t, std::string_view key,
                                                           std::string_view what) {
  const toml::node* n = t.get(key);
  if (n == nullptr || failed()) return std::nullopt;
  const toml::array* arr = n->as_array();
  if (arr == nullptr) {
    fail(*n, std::string(what) + " must be an array of strings (got " + type_name(*n) + ")");
    return std::nullopt;
  }
  std::vector<TomlString> out;
  for (const toml::node& e : *arr) {
    if (!e.is_string()) {
      fail(e, std::string(what) + " must be an array of strings (got " + type_name(e) + " in it)");
      return std::nullopt;
    }
    out.push_back({e.as_string()->get(), at(e), &e});
  }
  return out;
}

std::optional<std::string> TomlReader::choice(const toml::table& t, std::string_view key, std::string_view what,
                                              const std::vector<std::string>& choices) {
  const toml::node* n = t.get(key);
  if (n == nullptr || failed()) return std::nullopt;
  const auto* s = n->as_string();
  if (s == nullptr || std::find(choices.begin(), choices.end(), s->get()) == choices.end()) {
    std::string got = s != nullptr ? "\"" + s->get() + "\"" : type_name(*n);
    fail(*n, std::string(what) + " must be one of " + join_words(choices) + " (got " + got + ")",
         s != nullptr ? did_you_mean(s->get(), choices) : "");
    return std::nullopt;
  }
  return s->get();
}

std::string TomlReader::type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

}  // namespace paddock
