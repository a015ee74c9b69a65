#include "cli/value_sources.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

namespace paddock::cli {
namespace {

TEST(ValueSources, OnlyPlainNamesReachAShell) {
  EXPECT_TRUE(plain_name("claude"));
  EXPECT_TRUE(plain_name("my-profile_2.1+x"));
  for (const char* bad : {"", "-x", "$(id)", "a b", "a`b`", "a;b", "a\nb", "a\"b", "a'b", "~x", "a*b"})
    EXPECT_FALSE(plain_name(bad)) << bad;
}

// User profiles are named by their files: one named like shell code is not listed at all.
TEST(ValueSources, ProfileNamesLeaveOutFilesNamedLikeCode) {
  char tmpl[] = "/tmp/paddock-values-test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(::mkdir((dir + "/paddock").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((dir + "/paddock/profiles").c_str(), 0700), 0);
  for (const char* f : {"mine.toml", "$(touch x).toml", "a;b.toml", "notes.txt"})
    std::ofstream(dir + "/paddock/profiles/" + f) << "";
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  const auto names = profile_names();
  if (old) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CONFIG_HOME");
  EXPECT_NE(std::find(names.begin(), names.end(), "mine"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "claude"), names.end());
  for (const auto& n : names) {
    EXPECT_EQ(n.find_first_of("$`;()\\ \n"), std::string::npos) << "listed a name that is shell code: " << n;
  }
  EXPECT_EQ(std::find(names.begin(), names.end(), "notes"), names.end());
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace paddock::cli
