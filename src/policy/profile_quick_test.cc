#include "policy/profile_quick.h"

#include <gtest/gtest.h>

#include <toml++/toml.h>

#include "policy/builtin_profiles.h"

namespace paddock {
namespace {

const char* const kAccepted[] = {
    "",
    "# only a comment\n",
    "description = \"x\"\n",
    "  description=\"project read+write, system read-only\"   # why\r\n\n",
    "# a\n\n\tdescription = \"\"\n# b",
};

const char* const kRejected[] = {
    "description = \"a\"\ndescription = \"b\"\n",  // duplicate key: a TOML error
    "description = 'literal'\n",
    "description = \"esc\\\"aped\"\n",
    "description = \"x\" extra\n",
    "description = \"unterminated\n",
    "description.x = \"y\"\n",
    "descriptions = \"y\"\n",
    "extends = \"default\"\n",
    "[filesystem]\n",
    "description = \"caf\xc3\xa9\"\n",  // non-ASCII: left to the parser
    "# bad \x01 byte\n",
    "description = \"x\"\rdescription = \"y\"\n",
    "description = 1\n",
};

TEST(ProfileQuick, AcceptsOnlyADescription) {
  for (const char* t : kAccepted) EXPECT_TRUE(is_description_only_profile(t)) << t;
  for (const char* t : kRejected) EXPECT_FALSE(is_description_only_profile(t)) << t;
}

// Whatever it accepts, TOML reads as a table with at most a string "description".
TEST(ProfileQuick, AgreesWithTheTomlParser) {
  for (const char* t : kAccepted) {
    toml::table doc;
    ASSERT_NO_THROW(doc = toml::parse(t)) << t;
    for (auto&& [k, v] : doc) {
      EXPECT_EQ(k.str(), "description") << t;
      EXPECT_TRUE(v.is_string()) << t;
    }
  }
}

// The built-in default profile takes the quick path (it is on every run's start-up path).
TEST(ProfileQuick, DefaultProfileIsQuick) {
  const BuiltinProfile* d = find_builtin_profile("default");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(is_description_only_profile(d->toml));
  const BuiltinProfile* c = find_builtin_profile("claude");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(is_description_only_profile(c->toml));
}

}  // namespace
}  // namespace paddock
