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

// The other direction: every row of the "| path | why it is hidden |" table is an entry of the
// list (an entry dropped from the code but left in the docs fails here).
TEST(ListsDoc, EverySensitivePathInPolicyMdIsInTheList) {
  std::string doc = read_doc("policy.md");
  ASSERT_FALSE(doc.empty()) << "docs/policy.md not found next to the sources";
  std::size_t at = doc.find("| path | why it is hidden |");
  ASSERT_NE(at, std::string::npos) << "the sensitive-path table is missing from docs/policy.md";
  std::istringstream lines(doc.substr(at));
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);  // |---|---|
  int rows = 0;
  while (std::getline(lines, line) && line.rfind("| `", 0) == 0) {
    std::size_t end = line.find("` |", 3);
    ASSERT_NE(end, std::string::npos) << line;
    std::string p = line.substr(3, end - 3);
    if (p.rfind("~/", 0) == 0) p = p.substr(2);
    bool found = false;
    for (const auto& e : sensitive_entries()) found |= p == e.path;
    EXPECT_TRUE(found) << p << " is in docs/policy.md but not in src/policy/sensitive_paths.cc";
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<int>(sensitive_entries().size())) << "rows in the docs' table vs entries in the list";
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
