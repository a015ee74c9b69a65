// What the fallback says it lacks follows the policy and the host, one line per protection.
#include <algorithm>

#include <gtest/gtest.h>

#include "paddock/features.h"
#include "paddock/policy.h"

namespace paddock {
namespace {

std::vector<std::string> names(const std::vector<IsolationGap>& gaps) {
  std::vector<std::string> n;
  for (const IsolationGap& g : gaps) n.push_back(g.name);
  return n;
}

const IsolationGap* find(const std::vector<IsolationGap>& gaps, const std::string& name) {
  auto it = std::find_if(gaps.begin(), gaps.end(), [&](const IsolationGap& g) { return g.name == name; });
  return it == gaps.end() ? nullptr : &*it;
}

Features abi(int v) {
  Features f;
  f.landlock_abi = v;
  f.seccomp_filter = true;
  return f;
}

TEST(FallbackGaps, EveryClassOfTheIssueHasItsLine) {
  Policy p;
  p.protected_paths.push_back({"/work/.git/hooks", "git hooks run by git on the host", true});
  auto gaps = fallback_gaps(p, abi(6));
  EXPECT_EQ(names(gaps), (std::vector<std::string>{"no private /proc", "no private /tmp", "host directory names listable",
                                                   "host /sys", "host SysV IPC", "protected files writable during the run",
                                                   "no pid namespace"}));
  for (const IsolationGap& g : gaps) {
    EXPECT_FALSE(g.consequence.empty()) << g.name;
    EXPECT_EQ(g.consequence.find('\n'), std::string::npos) << g.name;
    EXPECT_EQ(gap_line(g), g.name + " — " + g.consequence);
  }
  EXPECT_NE(find(gaps, "protected files writable during the run")->consequence.find("moved aside after it"),
            std::string::npos);
}

TEST(FallbackGaps, ProtectedFilesOnlyWhenThereAreSome) {
  Policy p;
  EXPECT_EQ(find(fallback_gaps(p, abi(6)), "protected files writable during the run"), nullptr);
  p.protected_paths.push_back({"/work/.envrc", "run by direnv", false});  // absent: created ones are moved aside
  EXPECT_EQ(find(fallback_gaps(p, abi(6)), "protected files writable during the run"), nullptr);
}

TEST(FallbackGaps, OldLandlockAddsSignalsAndAbstractSockets) {
  Policy p;
  auto gaps = fallback_gaps(p, abi(4));
  ASSERT_NE(find(gaps, "host processes can be signalled"), nullptr);
  ASSERT_NE(find(gaps, "host abstract unix sockets reachable"), nullptr);
  EXPECT_NE(find(gaps, "host processes can be signalled")->consequence.find("ABI 4 < 6"), std::string::npos);
  // With the host's network, namespaces share its abstract sockets too: not a fallback gap.
  p.network.mode = NetMode::Host;
  EXPECT_EQ(find(fallback_gaps(p, abi(4)), "host abstract unix sockets reachable"), nullptr);
  EXPECT_EQ(find(fallback_gaps(p, abi(6)), "host processes can be signalled"), nullptr);
}

// The broker closes unix sockets and checks metadata; it needs seccomp, and paddock to stay.
TEST(FallbackGaps, WhatTheBrokerClosesIsAGapOnlyWithoutIt) {
  Policy p;
  auto with = fallback_gaps(p, abi(6));
  EXPECT_EQ(find(with, "host unix sockets reachable"), nullptr);
  EXPECT_EQ(find(with, "read-only paths' metadata"), nullptr);
  auto exec = fallback_gaps(p, abi(6), true);
  EXPECT_EQ(find(exec, "host unix sockets reachable"), nullptr);  // a plain filter: --exec keeps it
  ASSERT_NE(find(exec, "read-only paths' metadata"), nullptr);
  EXPECT_NE(find(exec, "read-only paths' metadata")->consequence.find("--exec leaves no paddock to check"),
            std::string::npos);
  Features no_seccomp = abi(6);
  no_seccomp.seccomp_filter = false;
  auto bare = fallback_gaps(p, no_seccomp);
  EXPECT_NE(find(bare, "host unix sockets reachable"), nullptr);
  EXPECT_NE(find(bare, "read-only paths' metadata"), nullptr);
}

TEST(FallbackGaps, ExecHasNoInitToKillDaemons) {
  Policy p;
  EXPECT_NE(find(fallback_gaps(p, abi(6)), "no pid namespace")->consequence.find("killed by paddock's init"),
            std::string::npos);
  EXPECT_NE(find(fallback_gaps(p, abi(6), true), "no pid namespace")->consequence.find("outlive it"),
            std::string::npos);
}

TEST(FallbackGaps, SysReadableUnderABroadRule) {
  Policy p;
  EXPECT_NE(find(fallback_gaps(p, abi(6)), "host /sys")->consequence.find("names are listable"), std::string::npos);
  PathRule root;
  root.path = "/";
  root.access = Access::Read;
  p.paths.push_back(root);
  EXPECT_NE(find(fallback_gaps(p, abi(6)), "host /sys")->consequence.find("readable through the rule on /"),
            std::string::npos);
}

}  // namespace
}  // namespace paddock
