#include "cli/self_denials.h"

#include <gtest/gtest.h>

#include "supervisor/denial.h"

namespace paddock::cli {
namespace {

std::string line(const Denial& d) { return supervisor::to_json(d).dump() + "\n"; }

// The record holds a line when a denial is first met and at each power of two: the reader keeps
// the last of each, in first-met order, and skips a torn last line.
TEST(SelfDenials, LastLineOfEachInFirstMetOrder) {
  Denial a = supervisor::from_syscall("mount", "EPERM", "mounts");
  Denial b = supervisor::from_syscall("bpf", "EPERM", "ebpf");
  a.count = 1;
  b.count = 1;
  std::string text = line(a) + line(b);
  a.count = 2;
  text += line(a) + "{\"version\":\"paddock.denial/1\",\"lay";
  std::size_t skipped = 0;
  auto got = read_denials(text, &skipped);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].what, "mount");
  EXPECT_EQ(got[0].count, 2u);
  EXPECT_EQ(got[1].what, "bpf");
  EXPECT_EQ(skipped, 1u);
}

}  // namespace
}  // namespace paddock::cli
