#include <gtest/gtest.h>

#include "paddock/sandbox.h"
#include "policy/policy_json.h"

namespace paddock {
namespace {

Policy full_policy() {
  Policy p;
  p.cwd = "/home/u/proj";
  p.home = "/home/u";
  p.user = "u";
  p.profile = "claude";
  p.paths.push_back({"/usr", "/usr", Access::Read, {Origin::Kind::BuiltIn, "system default"}, true, {}});
  p.paths.push_back({"/bin", "/bin", Access::Read, {Origin::Kind::BuiltIn, "system default"}, true, "/usr/bin"});
  p.paths.push_back({"/home/u/proj", ".", Access::ReadWrite, {Origin::Kind::Cwd, "current directory"}, false, {}});
  p.paths.push_back({"/home/u/docs", "~/docs", Access::Read, {Origin::Kind::Flag, "--read ~/docs"}, false, {}});
  p.paths.push_back({"/home/u/out", "~/out", Access::Write, {Origin::Kind::Profile, "x.toml:3:9"}, false, {}});
  p.denied.push_back({"/etc/shadow", "password hashes"});
  p.protected_paths.push_back({"/home/u/proj/.git/hooks", "git hooks", true});
  p.protected_paths.push_back({"/home/u/proj/.envrc", "direnv", false});
  p.network.mode = NetMode::Filtered;
  p.network.allow_domains = {"*.github.com", "pypi.org:443"};
  p.network.deny_domains = {"evil.example"};
  p.env.pass = {"GITHUB_TOKEN"};
  p.env.set = {{"A", "1"}, {"B", "two words"}};
  p.limits.memory_bytes = 2ull << 30;
  p.limits.pids = 256;
  p.limits.cpu = 1.5;
  p.limits.timeout = std::chrono::minutes(30);
  p.limits.max_open_files = 1024;
  p.limits.core_dumps = true;
  p.require_namespaces = true;
  p.refuse_discarded_writes = true;
  p.notes = {"system path /nix/store is absent on this host; skipped"};
  return p;
}

TEST(PolicyJson, RoundTrip) {
  Policy p = full_policy();
  auto j = policy_to_json(p);
  EXPECT_EQ(j["version"], "paddock.policy/1");
  EXPECT_EQ(j["paths"][1]["symlink_target"], "/usr/bin");
  EXPECT_FALSE(j["paths"][0].contains("symlink_target"));
  EXPECT_EQ(j["paths"][2]["origin"]["kind"], "cwd");
  EXPECT_EQ(j["limits"]["timeout_ms"], 1800000);
  EXPECT_FALSE(j["limits"].contains("tmp_size_bytes"));

  auto back = policy_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(policy_to_json(*back), j);
  EXPECT_EQ(back->paths[1].symlink_target, "/usr/bin");
  EXPECT_EQ(back->paths[4].access, Access::Write);
  EXPECT_EQ(back->paths[4].origin.kind, Origin::Kind::Profile);
  EXPECT_EQ(back->network.mode, NetMode::Filtered);
  EXPECT_EQ(*back->limits.cpu, 1.5);
  EXPECT_EQ(back->limits.timeout->count(), 1800000);
  EXPECT_FALSE(back->protected_paths[1].exists);
  EXPECT_EQ(back->env.set.size(), 2u);
}

TEST(PolicyJson, EmptyPolicyRoundTrips) {
  Policy p;
  auto back = policy_from_json(policy_to_json(p));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(policy_to_json(*back), policy_to_json(p));
}

TEST(PolicyJson, ClearErrors) {
  auto j = policy_to_json(full_policy());
  auto v = j;
  v["version"] = "paddock.policy/9";
  auto r = policy_from_json(v);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "unsupported policy JSON version \"paddock.policy/9\"");

  v = j;
  v["paths"][3]["access"] = "everything";
  r = policy_from_json(v);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "invalid policy JSON: paths[3].access is \"everything\", not one of read, write, read+write");

  v = j;
  v["paths"][0].erase("path");
  r = policy_from_json(v);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "invalid policy JSON: paths[0].path is missing");

  v = j;
  v["limits"]["pids"] = -1;
  r = policy_from_json(v);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "invalid policy JSON: limits.pids must be a non-negative integer");

  EXPECT_FALSE(policy_from_json(nlohmann::json::array()).ok());
}


// The PADDOCK_POLICY file's exact text, pinned: the sandbox and `why --self` read it, and the
// run path writes it with a hand-rolled writer (policy_json_text) that must not drift from it.
Policy sample_policy() {
  Policy p = full_policy();
  p.paths[3].given = "~/d\"q\\b";
  p.paths[3].origin.detail = "--read ~/d\"q\\b";
  p.env.set = {{"B", "two words"}, {"A", "1"}, {"a", "x/y"}};
  p.limits.tmp_size_bytes = 18446744073709551615ull;
  p.limits.home_size_bytes = 0;
  p.limits.best_effort = true;
  p.notes.push_back("two");
  return p;
}

constexpr const char* kSampleJson = R"({
  "cwd": "/home/u/proj",
  "denied": [
    {
      "path": "/etc/shadow",
      "reason": "password hashes"
    }
  ],
  "env": {
    "pass": [
      "GITHUB_TOKEN"
    ],
    "set": {
      "A": "1",
      "B": "two words",
      "a": "x/y"
    }
  },
  "home": "/home/u",
  "limits": {
    "best_effort": true,
    "core_dumps": true,
    "cpu": 1.5,
    "home_size_bytes": 0,
    "max_open_files": 1024,
    "memory_bytes": 2147483648,
    "pids": 256,
    "pids_ceiling": 4096,
    "timeout_ms": 1800000,
    "tmp_size_bytes": 18446744073709551615
  },
  "network": {
    "allow": [
      "*.github.com",
      "pypi.org:443"
    ],
    "deny": [
      "evil.example"
    ],
    "mode": "filtered"
  },
  "notes": [
    "system path /nix/store is absent on this host; skipped",
    "two"
  ],
  "paths": [
    {
      "access": "read",
      "given": "/usr",
      "optional": true,
      "origin": {
        "detail": "system default",
        "kind": "built-in"
      },
      "path": "/usr"
    },
    {
      "access": "read",
      "given": "/bin",
      "optional": true,
      "origin": {
        "detail": "system default",
        "kind": "built-in"
      },
      "path": "/bin",
      "symlink_target": "/usr/bin"
    },
    {
      "access": "read+write",
      "given": ".",
      "optional": false,
      "origin": {
        "detail": "current directory",
        "kind": "cwd"
      },
      "path": "/home/u/proj"
    },
    {
      "access": "read",
      "given": "~/d\"q\\b",
      "optional": false,
      "origin": {
        "detail": "--read ~/d\"q\\b",
        "kind": "flag"
      },
      "path": "/home/u/docs"
    },
    {
      "access": "write",
      "given": "~/out",
      "optional": false,
      "origin": {
        "detail": "x.toml:3:9",
        "kind": "profile"
      },
      "path": "/home/u/out"
    }
  ],
  "profile": "claude",
  "protected": [
    {
      "exists": true,
      "path": "/home/u/proj/.git/hooks",
      "reason": "git hooks"
    },
    {
      "exists": false,
      "path": "/home/u/proj/.envrc",
      "reason": "direnv"
    }
  ],
  "refuse_discarded_writes": true,
  "require_namespaces": true,
  "user": "u",
  "version": "paddock.policy/1"
})";

constexpr const char* kEmptyJson = R"({
  "cwd": "",
  "denied": [],
  "env": {
    "pass": [],
    "set": {}
  },
  "home": "",
  "limits": {
    "pids_ceiling": 4096
  },
  "network": {
    "allow": [],
    "deny": [],
    "mode": "off"
  },
  "notes": [],
  "paths": [],
  "profile": "",
  "protected": [],
  "refuse_discarded_writes": false,
  "require_namespaces": false,
  "user": "",
  "version": "paddock.policy/1"
})";

TEST(PolicyJson, ExactText) {
  EXPECT_EQ(policy_to_json(sample_policy()).dump(2), kSampleJson);
  EXPECT_EQ(policy_to_json(Policy{}).dump(2), kEmptyJson);
  EXPECT_EQ(policy_json_text(sample_policy()), kSampleJson);
  EXPECT_EQ(policy_json_text(Policy{}), kEmptyJson);
}

// The direct writer and nlohmann agree on every field, whatever is set or empty.
TEST(PolicyJson, TextWriterMatchesNlohmann) {
  std::vector<Policy> cases{Policy{}, full_policy(), sample_policy()};
  Policy p = sample_policy();
  p.env.set = {{"Z", "1"}, {"A", "2"}, {"Z", "3"}, {"\xc3\xa9", "4"}};  // repeated name: last wins
  p.limits = {};
  p.limits.timeout = std::chrono::milliseconds(0);
  p.notes.clear();
  p.paths.resize(1);
  cases.push_back(p);
  for (double c : {0.5, 2.0, 1e-05, 0.1, 123456789.125, 1e300}) {
    Policy q;
    q.limits.cpu = c;
    cases.push_back(q);
  }
  Policy e;
  e.cwd = "/p/\xc3\xa9t\xf0\x9f\x98\x80\t\n\r\b\f\x01\x1f\x7f\"\\/";
  cases.push_back(e);
  for (const Policy& c : cases) EXPECT_EQ(policy_json_text(c), policy_to_json(c).dump(2));
}

// Invalid UTF-8 fails as it did with nlohmann alone (its type_error), never as different text.
TEST(PolicyJson, TextWriterInvalidUtf8FailsLikeNlohmann) {
  for (const char* bad : {"\xff", "\xc3", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf"}) {
    Policy p;
    p.denied.push_back({std::string("/x") + bad, "r"});
    EXPECT_THROW(policy_to_json(p).dump(2), nlohmann::json::type_error);
    EXPECT_THROW(policy_json_text(p), nlohmann::json::type_error);
  }
}

TEST(PolicyJson, ExactTextEscapes) {
  Policy p;
  p.cwd = "/p/\xc3\xa9t\xc3\xa9\t\n\r\b\f\x01\x1f\x7f";
  p.user = "\"\\/";
  const std::string text = policy_to_json(p).dump(2);
  EXPECT_EQ(policy_json_text(p), text);
  EXPECT_NE(text.find("\"cwd\": \"/p/\xc3\xa9t\xc3\xa9\\t\\n\\r\\b\\f\\u0001\\u001f\x7f\",\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"user\": \"\\\"\\\\/\",\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace paddock
