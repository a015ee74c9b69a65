// Issue 18, item 3: /dev/shm has a size whatever the user's privileges: 64M by default, at most
// --memory, --shm-size to choose. Unprivileged, --memory is an rlimit that does not count tmpfs
// pages, so before this a 64M run could pin a quarter of RAM in /dev/shm.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "helpers/test_util.h"

namespace ktest {
namespace {

// Writes up to 256M into /dev/shm and prints how many MiB made it.
const char* kFill = "dd if=/dev/zero of=/dev/shm/fill bs=1M count=256 2>/dev/null; "
                    "echo $(( $(stat -c %s /dev/shm/fill) / 1048576 ))";

TEST(Shm, SizedByDefaultByMemoryAndByTheFlag) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "the sandbox's own /dev/shm needs namespaces";
  World w;
  auto def = w.sh(kFill);
  EXPECT_EQ(def.out, "64\n") << describe(def);
  auto mem = w.sh(kFill, {"--memory", "256M", "--best-effort-limits"});
  EXPECT_EQ(mem.out, "64\n") << describe(mem);
  // At most --memory (a cgroup, where there is one, may stop it a little earlier).
  auto small = w.sh(kFill, {"--memory", "32M", "--best-effort-limits"});
  int small_mib = std::atoi(small.out.c_str());
  EXPECT_GE(small_mib, 16) << describe(small);
  EXPECT_LE(small_mib, 32) << describe(small);
  auto flag = w.sh(kFill, {"--shm-size", "8M"});
  EXPECT_EQ(flag.out, "8\n") << describe(flag);

  std::string report = w.root.path() + "/r.json";
  auto rep = w.sh("true", {"--report", report});
  ASSERT_EQ(rep.code, 0) << describe(rep);
  auto j = nlohmann::json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  bool said = false;
  for (const auto& l : j["limits"]) said = said || (l.value("name", "") == "shm-size" && l.value("requested", "") == "64M");
  EXPECT_TRUE(said) << j.dump(2);
  auto bad = w.sh("true", {"--shm-size", "lots"});
  EXPECT_EQ(bad.code, 2) << describe(bad);
}

}  // namespace
}  // namespace ktest
