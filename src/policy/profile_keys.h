// The keys a profile may hold, table by table: the schema of docs/profiles.md. The parser refuses
// any other key (with the nearest as a hint), and docs/profiles.md — which paddock-profile(5) is
// made from — lists exactly these (profile_keys_doc_test.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paddock {

struct ProfileTable {
  std::string name;  // "" for the top level, else "filesystem", "network", ...
  std::vector<std::string> keys;
};

// In the order docs/profiles.md shows them.
const std::vector<ProfileTable>& profile_tables();
// The keys of TABLE ("" for the top level; the top level's keys include the tables' names).
const std::vector<std::string>& profile_keys(std::string_view table);

}  // namespace paddock
