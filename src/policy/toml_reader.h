// The one reader of paddock's TOML files: profiles (policy/profile_apply.cc), /etc/paddock/host.toml
// (host/config.cc) and `paddock mcp`'s configuration (mcp/config.cc). It owns what those share:
// parsing with the parser's error at FILE:LINE:COL, unknown keys refused with the nearest known
// one as a hint, typed getters whose errors point at the offending value and say what was found,
// and keeping the first error of a read. What the values mean stays with each file's schema.
// It touches no file system: callers read the text (with their own size and ownership checks).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "paddock/result.h"

namespace paddock {

// One string of an array, with where it was written.
struct TomlString {
  std::string value;
  std::string where;            // "file:line:col"
  const toml::node* node = nullptr;
};

class TomlReader {
 public:
  // FILE names the text in every position ("profile.toml", "<built-in:pi>", "/etc/paddock/host.toml").
  explicit TomlReader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  // The document, or the parser's message at its position.
  Result<toml::table> parse(std::string_view text) const;

  // "file:line:col" of a key or a value.
  std::string at(const toml::source_region& r) const;
  std::string at(const toml::node& n) const { return at(n.source()); }

  // The first failure of a read is kept, later ones are dropped (they are usually its echoes);
  // each returns the kept error.
  Error fail_at(const toml::source_region& r, std::string message, std::string hint = {});
  Error fail(const toml::node& n, std::string message, std::string hint = {});
  Error fail_where(std::string where, std::string message, std::string hint = {});
  bool failed() const { return error_.has_value(); }
  const std::optional<Error>& error() const { return error_; }

  // Unknown keys are errors: a typo must not silently drop a restriction or a grant. TABLE names
  // the table in the message ("[filesystem]", "a root of [users.alice]"), "" for the top level
  // (where a misspelt table reads "unknown table [filesytem]"). The hint is the closest known key.
  // False (and the error kept) at the first unknown key.
  bool check_keys(const toml::table& t, std::string_view table, const std::vector<std::string>& known);

  // Typed getters: nothing when KEY is absent or a read has already failed; on a wrong type or an
  // out-of-range value the error is kept ("WHAT must be true or false (got a string)", at the
  // value) and nothing returned. WHAT names the value in messages ("[limits] pids", "binary in
  // [agents.pi]").
  const toml::table* table(const toml::table& t, std::string_view key, std::string_view what,
                           std::string hint = {});
  std::optional<std::string> string(const toml::table& t, std::string_view key, std::string_view what);
  std::optional<bool> boolean(const toml::table& t, std::string_view key, std::string_view what);
  // An integer in [MIN, MAX]: "must be a positive integer" when MIN is 1 and MAX unbounded, else
  // "must be an integer between MIN and MAX" (or "of at least MIN").
  std::optional<std::int64_t> integer(const toml::table& t, std::string_view key, std::string_view what,
                                      std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                      std::int64_t max = std::numeric_limits<std::int64_t>::max());
  // An array of strings; an element of another type is reported at that element.
  std::optional<std::vector<TomlString>> strings(const toml::table& t, std::string_view key, std::string_view what);
  // A string that must be one of CHOICES ("WHAT must be one of a, b, c (got \"x\")" with the
  // closest choice as the hint).
  std::optional<std::string> choice(const toml::table& t, std::string_view key, std::string_view what,
                                    const std::vector<std::string>& choices);

  // "a string", "an integer", "a table", ...: what a node is, for messages.
  static std::string type_name(const toml::node& n);

 private:
  std::string file_;
  std::optional<Error> error_;
};

// "a, b, c": a list of words for a message.
std::string join_words(const std::vector<std::string>& words);

}  // namespace paddock
