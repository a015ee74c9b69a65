// docs/policy.md must list every sensitive and protected entry: the docs stay true when the
// lists change.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "paddock/sandbox.h"
#include "policy/protected_paths.h"
#include "policy/sensitive_paths.h"

namespace paddock {
namespace {

std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(PADDOCK_SOURCE_DIR) + "/docs/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ListsDoc, PolicyMdListsEverySensitivePath) {
  std::string doc = read_doc("policy.md");
  ASSERT_FALSE(doc.empty()) << "docs/policy.md not found next to the sources";
  for (const auto& e : sensitive_entries()) {
    std::string p = e.path[0] == '/' ? std::string(e.path) : "~/" + std::string(e.path);
    EXPECT_NE(doc.find("| `" + p + "` | " + e.reason + " |"), std::string::npos) << p;
  }
}

TEST(ListsDoc, PolicyMdListsEveryProtectedPath) {
  std::string doc = read_doc("policy.md");
  ASSERT_FALSE(doc.empty()) << "docs/policy.md not found next to the sources";
  for (const auto& e : workspace_protected_entries()) {
    EXPECT_NE(doc.find("| `" + std::string(e.path) + "` | " + e.reason + " |"), std::string::npos) << e.path;
  }
  for (const auto& e : home_protected_entries()) {
    EXPECT_NE(doc.find("| `~/" + std::string(e.path) + "` | " + e.reason + " |"), std::string::npos) << e.path;
  }
}

TEST(ListsDoc, PolicyMdListsTheSafeEnvironment) {
  std::string doc = read_doc("policy.md");
  ASSERT_FALSE(doc.empty()) << "docs/policy.md not found next to the sources";
  for (const auto& n : safe_env_names()) EXPECT_NE(doc.find(" " + n), std::string::npos) << n;
}

}  // namespace
}  // namespace paddock
