#include "policy/toml_reader.h"

#include <gtest/gtest.h>

#include <functional>

namespace paddock {
namespace {

// The error a read keeps, as the CLI prints it (with the hint).
std::string shown(const Error& e) { return e.describe() + (e.hint.empty() ? "" : " (" + e.hint + ")"); }

struct Doc {
  TomlReader reader{"c.toml"};
  toml::table table;

  explicit Doc(std::string_view text) {
    auto t = reader.parse(text);
    EXPECT_TRUE(t.ok()) << shown(t.error());
    if (t) table = std::move(*t);
  }
  std::string error() const { return reader.error() ? shown(*reader.error()) : "no error"; }
};

TEST(TomlReader, ParseErrorsCarryThePosition) {
  TomlReader r("c.toml");
  auto t = r.parse("a = 1\nb = [\n");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().describe(), "c.toml:2:7: Error while parsing array: encountered end-of-file");
  auto dup = r.parse("a = 1\na = 2\n");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().where.rfind("c.toml:2:", 0), 0u) << dup.error().describe();
}

TEST(TomlReader, PositionsOfKeysAndValues) {
  Doc d("[limits]\npids   = 5\nlist = [\"a\", \"bb\"]\n");
  const toml::table& limits = *d.table.get("limits")->as_table();
  EXPECT_EQ(d.reader.at(*limits.get("pids")), "c.toml:2:10");
  auto list = d.reader.strings(limits, "list", "[limits] list");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].value, "a");
  EXPECT_EQ((*list)[0].where, "c.toml:3:9");
  EXPECT_EQ((*list)[1].where, "c.toml:3:14");
  EXPECT_EQ((*list)[1].node, limits.get("list")->as_array()->get(1));
  EXPECT_FALSE(d.reader.failed());
}

TEST(TomlReader, UnknownKeysWithTheNearestKnown) {
  {
    Doc d("[filesystem]\nread = []\nalow = []\n");
    EXPECT_TRUE(d.reader.check_keys(d.table, "", {"filesystem", "network"}));
    EXPECT_FALSE(d.reader.check_keys(*d.table.get("filesystem")->as_table(), "[filesystem]", {"allow", "read"}));
    EXPECT_EQ(d.error(), "c.toml:3:1: unknown key \"alow\" in [filesystem] (did you mean \"allow\"?)");
  }
  {
    Doc d("[filesytem]\nread = []\n");
    EXPECT_FALSE(d.reader.check_keys(d.table, "", {"filesystem", "network"}));
    EXPECT_EQ(d.error(), "c.toml:1:2: unknown table [filesytem] (did you mean \"filesystem\"?)");
  }
  {
    Doc d("colour = 1\n");  // nothing close: no hint
    EXPECT_FALSE(d.reader.check_keys(d.table, "", {"filesystem", "network"}));
    EXPECT_EQ(d.error(), "c.toml:1:1: unknown key \"colour\"");
  }
}

TEST(TomlReader, TypeErrorsSayWhatWasFound) {
  Doc d("s = 1\nb = \"yes\"\ni = 1.5\na = \"x\"\ne = [\"x\", 2]\nt = 3\n");
  using Read = std::function<void(TomlReader&, const toml::table&)>;
  const std::vector<std::pair<Read, std::string>> cases = {
      {[](TomlReader& r, const toml::table& t) { EXPECT_FALSE(r.string(t, "s", "s")); },
       "c.toml:1:5: s must be a string (got an integer)"},
      {[](TomlReader& r, const toml::table& t) { EXPECT_FALSE(r.boolean(t, "b", "b")); },
       "c.toml:2:5: b must be true or false (got a string)"},
      {[](TomlReader& r, const toml::table& t) { EXPECT_FALSE(r.integer(t, "i", "i", 1)); },
       "c.toml:3:5: i must be a positive integer (got a number)"},
      {[](TomlReader& r, const toml::table& t) { EXPECT_FALSE(r.strings(t, "a", "[x] a")); },
       "c.toml:4:5: [x] a must be an array of strings (got a string)"},
      {[](TomlReader& r, const toml::table& t) { EXPECT_FALSE(r.strings(t, "e", "[x] e")); },
       "c.toml:5:11: [x] e must be an array of strings (got an integer in it)"},
      {[](TomlReader& r, const toml::table& t) { EXPECT_EQ(r.table(t, "t", "t", "write [t]"), nullptr); },
       "c.toml:6:5: t must be a table (got an integer) (write [t])"},
  };
  for (const auto& [read, expected] : cases) {
    TomlReader r("c.toml");
    read(r, d.table);
    ASSERT_TRUE(r.error());
    EXPECT_EQ(shown(*r.error()), expected);
  }
}

TEST(TomlReader, RangeErrorsSayTheRangeAndTheValue) {
  Doc d("a = 0\nb = 1\nc = 70000\nd = -3\n");
  auto check = [&](const char* key, std::int64_t min, std::int64_t max, const std::string& expected) {
    TomlReader r("c.toml");
    EXPECT_FALSE(r.integer(d.table, key, key, min, max));
    ASSERT_TRUE(r.error()) << key;
    EXPECT_EQ(shown(*r.error()), expected);
  };
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  check("a", 1, kMax, "c.toml:1:5: a must be a positive integer (got 0)");
  check("b", 16, 1 << 20, "c.toml:2:5: b must be an integer between 16 and 1048576 (got 1)");
  check("c", 1, 1 << 16, "c.toml:3:5: c must be an integer between 1 and 65536 (got 70000)");
  check("d", 0, kMax, "c.toml:4:5: d must be an integer of at least 0 (got -3)");
  TomlReader r("c.toml");
  EXPECT_EQ(r.integer(d.table, "b", "b", 1, 1), 1);  // the bounds are inclusive
  EXPECT_FALSE(r.failed());
}

TEST(TomlReader, ChoicesHintTheNearest) {
  Doc d("mode = \"of\"\ncwd = 3\n");
  EXPECT_FALSE(d.reader.choice(d.table, "mode", "[network] mode", {"off", "on", "filtered"}));
  EXPECT_EQ(d.error(),
            "c.toml:1:8: [network] mode must be one of off, on, filtered (got \"of\") (did you mean \"off\"?)");
  TomlReader r("c.toml");
  EXPECT_FALSE(r.choice(d.table, "cwd", "cwd", {"read", "none"}));
  EXPECT_EQ(shown(*r.error()), "c.toml:2:7: cwd must be one of read, none (got an integer)");
  TomlReader ok("c.toml");
  EXPECT_EQ(ok.choice(d.table, "mode", "mode", {"of"}), "of");
}

TEST(TomlReader, TheFirstErrorIsKept) {
  Doc d("a = 1\nb = 2\n");
  d.reader.fail(*d.table.get("b"), "first");
  d.reader.fail(*d.table.get("a"), "second");
  d.reader.fail_where("elsewhere", "third");
  EXPECT_EQ(d.error(), "c.toml:2:5: first");
  // Once failed, getters read nothing more.
  EXPECT_FALSE(d.reader.integer(d.table, "a", "a"));
  EXPECT_EQ(d.error(), "c.toml:2:5: first");
}

TEST(TomlReader, AbsentKeysAreNotErrors) {
  Doc d("x = 1\n");
  EXPECT_FALSE(d.reader.string(d.table, "s", "s"));
  EXPECT_FALSE(d.reader.boolean(d.table, "b", "b"));
  EXPECT_FALSE(d.reader.integer(d.table, "i", "i"));
  EXPECT_FALSE(d.reader.strings(d.table, "a", "a"));
  EXPECT_FALSE(d.reader.choice(d.table, "c", "c", {"x"}));
  EXPECT_EQ(d.reader.table(d.table, "t", "t"), nullptr);
  EXPECT_FALSE(d.reader.failed());
  EXPECT_EQ(d.reader.integer(d.table, "x", "x", 0, 1), 1);
}

}  // namespace
}  // namespace paddock
