#include "policy/sensitive_paths.h"

#include <gtest/gtest.h>

#include "policy/path_util.h"
#include "policy/protected_paths.h"

namespace paddock {
namespace {

// The builder joins entries to HOME without normalising again: each must already be clean.
bool clean_relative(std::string_view e) {
  return !e.empty() && e[0] != '/' && path::normalize(e) == "/" + std::string(e);
}

TEST(SensitivePaths, EntriesAreCleanPaths) {
  for (const auto& e : sensitive_entries()) {
    std::string_view p = e.path;
    if (p[0] == '/') EXPECT_EQ(path::normalize(p), p) << p;
    else EXPECT_TRUE(clean_relative(p)) << p;
  }
  for (const auto& e : workspace_protected_entries()) EXPECT_TRUE(clean_relative(e.path)) << e.path;
  for (const auto& e : home_protected_entries()) EXPECT_TRUE(clean_relative(e.path)) << e.path;
}

TEST(SensitivePaths, AbsoluteAgainstHome) {
  auto list = sensitive_path_list("/home/u/");
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(list.front().path, "/home/u/.ssh");
  bool root = false;
  for (const auto& s : list) root |= s.path == "/root";
  EXPECT_TRUE(root);
  // root's own HOME is not a secret to root.
  for (const auto& s : sensitive_path_list("/root")) EXPECT_NE(s.path, "/root");
  EXPECT_EQ(sensitive_paths("/home/u").size(), list.size());
}

}  // namespace
}  // namespace paddock
