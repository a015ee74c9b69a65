#include <gtest/gtest.h>

#include <algorithm>

#include "paddock/sandbox.h"
#include "policy/env_names.h"

namespace paddock {
namespace {

Policy sample_policy() {
  Policy p;
  p.cwd = "/home/u/proj";
  p.home = "/home/u";
  p.user = "u";
  return p;
}

bool has(const std::vector<std::string>& env, const std::string& kv) {
  return std::find(env.begin(), env.end(), kv) != env.end();
}
bool has_name(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(),
                     [&](const std::string& kv) { return kv.rfind(name + "=", 0) == 0; });
}

TEST(EnvNames, Validation) {
  EXPECT_TRUE(valid_env_name("PATH"));
  EXPECT_TRUE(valid_env_name("_x1"));
  EXPECT_FALSE(valid_env_name(""));
  EXPECT_FALSE(valid_env_name("1A"));
  EXPECT_FALSE(valid_env_name("A-B"));
  EXPECT_FALSE(valid_env_name("A=B"));
  EXPECT_TRUE(is_safe_env_name("LC_ALL"));
  EXPECT_TRUE(is_safe_env_name("TERM"));
  EXPECT_FALSE(is_safe_env_name("LC_"));
  EXPECT_FALSE(is_safe_env_name("TERMINAL_SECRET"));
}

TEST(SandboxEnvironment, SecretsAreScrubbed) {
  std::vector<std::string> host = {
      "PATH=/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8", "LC_TIME=de_DE.UTF-8",
      "ANTHROPIC_API_KEY=sk-ant-secret", "AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=ghp_x",
      "SSH_AUTH_SOCK=/run/user/1000/ssh", "HOME=/elsewhere", "USER=root", "TMPDIR=/var/tmp",
      "OLDPWD=/x", "garbage", "=novalue"};
  auto env = sandbox_environment(sample_policy(), host);
  EXPECT_TRUE(has(env, "PATH=/usr/bin:/bin"));
  EXPECT_TRUE(has(env, "TERM=xterm-256color"));
  EXPECT_TRUE(has(env, "LC_TIME=de_DE.UTF-8"));
  EXPECT_TRUE(has(env, "HOME=/home/u"));
  EXPECT_TRUE(has(env, "USER=u"));
  EXPECT_TRUE(has(env, "LOGNAME=u"));
  EXPECT_TRUE(has(env, "PWD=/home/u/proj"));
  EXPECT_TRUE(has(env, "TMPDIR=/tmp"));
  for (const char* secret : {"ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN",
                             "SSH_AUTH_SOCK", "OLDPWD"}) {
    EXPECT_FALSE(has_name(env, secret)) << secret;
  }
  EXPECT_TRUE(std::is_sorted(env.begin(), env.end()));
}

TEST(SandboxEnvironment, PassAndSet) {
  Policy p = sample_policy();
  p.env.pass = {"GITHUB_TOKEN", "NOT_IN_HOST"};
  p.env.set = {{"FOO", "bar"}, {"HOME", "/override"}};
  auto env = sandbox_environment(p, {"GITHUB_TOKEN=ghp_x", "ANTHROPIC_API_KEY=k"});
  EXPECT_TRUE(has(env, "GITHUB_TOKEN=ghp_x"));
  EXPECT_FALSE(has_name(env, "NOT_IN_HOST"));
  EXPECT_FALSE(has_name(env, "ANTHROPIC_API_KEY"));
  EXPECT_TRUE(has(env, "FOO=bar"));
  EXPECT_TRUE(has(env, "HOME=/home/u"));  // facts of the sandbox are not overridable
  EXPECT_TRUE(has(env, "PATH=/usr/local/bin:/usr/bin:/bin"));  // default when absent
}

}  // namespace
}  // namespace paddock
