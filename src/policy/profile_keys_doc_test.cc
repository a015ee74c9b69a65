// docs/profiles.md's schema block lists exactly the keys the parser accepts: paddock-profile(5) is
// made from that file, so neither it nor the docs can keep a key the parser dropped, or miss one
// it learned.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "policy/profile_keys.h"

namespace paddock {
namespace {

std::set<std::string> schema_keys_in_doc() {
  std::ifstream in(std::string(PADDOCK_SOURCE_DIR) + "/docs/profiles.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  std::set<std::string> out;
  std::size_t at = doc.find("## Schema");
  if (at == std::string::npos) return out;
  at = doc.find("```toml\n", at);
  const std::size_t end = doc.find("```\n", at + 8);
  std::istringstream lines(doc.substr(at + 8, end - at - 8));
  std::string line, table;
  while (std::getline(lines, line)) {
    if (line.size() > 2 && line[0] == '[') {
      table = line.substr(1, line.find(']') - 1);
      out.insert("." + table);  // a table is a key of the top level
      continue;
    }
    const std::size_t eq = line.find(" = ");
    if (line.empty() || line[0] == ' ' || line[0] == '#' || eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    out.insert(table + "." + key);
  }
  return out;
}

TEST(ProfileKeysDoc, TheSchemaInProfilesMdIsTheParsersKeys) {
  const std::set<std::string> doc = schema_keys_in_doc();
  ASSERT_FALSE(doc.empty()) << "no ```toml block under \"## Schema\" in docs/profiles.md";
  std::set<std::string> code;
  for (const auto& t : profile_tables())
    for (const auto& k : t.keys) code.insert(t.name + "." + k);
  for (const auto& k : code) EXPECT_TRUE(doc.count(k)) << k << " is accepted but not in docs/profiles.md's schema";
  for (const auto& k : doc) EXPECT_TRUE(code.count(k)) << k << " is in docs/profiles.md's schema but not accepted";
}

}  // namespace
}  // namespace paddock
