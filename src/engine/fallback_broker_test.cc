#include "engine/fallback_broker.h"

#include <gtest/gtest.h>

namespace paddock::engine {
namespace {

TEST(FallbackBroker, MetadataChangesOnlyWhereThePolicyWrites) {
  BrokerPolicy b;
  b.writable = {"/home/u/proj", "/tmp/paddock-x/home"};
  b.denied = {"/home/u/proj/.git/hooks", "/home/u/proj/.env.secret"};
  EXPECT_TRUE(metadata_change_allowed(b, "/home/u/proj/src/a.c"));
  EXPECT_TRUE(metadata_change_allowed(b, "/home/u/proj"));
  EXPECT_TRUE(metadata_change_allowed(b, "/tmp/paddock-x/home/.cache/x"));
  EXPECT_FALSE(metadata_change_allowed(b, "/home/u/project-other/a"));  // a prefix, not a parent
  EXPECT_FALSE(metadata_change_allowed(b, "/home/u/docs/keep.txt"));
  EXPECT_FALSE(metadata_change_allowed(b, "/home/u/proj/.git/hooks/pre-commit"));
  EXPECT_FALSE(metadata_change_allowed(b, "/home/u/proj/.env.secret"));
  EXPECT_FALSE(metadata_change_allowed(b, "/home/u/proj/a.c (deleted)"));  // another link may remain
  EXPECT_FALSE(metadata_change_allowed(b, ""));
  EXPECT_TRUE(metadata_change_allowed(b, "pipe:[1234]"));
  EXPECT_TRUE(metadata_change_allowed(b, "/memfd:buffer (deleted)"));
}

TEST(FallbackBroker, TheFilterEndsEveryPathWithAReturn) {
  for (bool notify : {true, false}) {
    auto f = broker_filter(notify);
    ASSERT_FALSE(f.empty());
    EXPECT_EQ(f.back().code, BPF_RET | BPF_K);
    // Every jump lands inside the program.
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (BPF_CLASS(f[i].code) != BPF_JMP) continue;
      EXPECT_LT(i + 1 + f[i].jt, f.size()) << i;
      EXPECT_LT(i + 1 + f[i].jf, f.size()) << i;
    }
  }
}

}  // namespace
}  // namespace paddock::engine
