#include "net/proxy_env.h"

#include <gtest/gtest.h>

namespace paddock::net {
namespace {

const std::vector<std::pair<std::string, std::string>> kFilter = {
    {"HTTP_PROXY", "http://127.0.0.1:3128"},
    {"NO_PROXY", "localhost,127.0.0.1,::1"},
    {"no_proxy", "localhost,127.0.0.1,::1"},
};

std::string value_of(const ProxyEnvironment& p, const std::string& name) {
  for (const auto& [k, v] : p.set)
    if (k == name) return v;
  return "<unset>";
}

TEST(ProxyEnv, WithoutUserValuesTheFilterValuesAreSetAndNothingIsSaid) {
  auto p = proxy_environment(kFilter, {"PATH=/bin", "TERM=xterm"});
  EXPECT_EQ(value_of(p, "HTTP_PROXY"), "http://127.0.0.1:3128");
  EXPECT_EQ(value_of(p, "NO_PROXY"), "localhost,127.0.0.1,::1");
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ProxyEnv, UserNoProxyIsMergedNotDropped) {
  auto p = proxy_environment(kFilter, {"NO_PROXY=internal.example, localhost", "no_proxy=.corp"});
  EXPECT_EQ(value_of(p, "NO_PROXY"), "internal.example,localhost,127.0.0.1,::1");
  EXPECT_EQ(value_of(p, "no_proxy"), ".corp,localhost,127.0.0.1,::1");
  EXPECT_TRUE(p.warnings.empty());
}

TEST(ProxyEnv, UserProxyIsReplacedAndSaid) {
  auto p = proxy_environment(kFilter, {"HTTP_PROXY=http://corp-proxy:8080"});
  EXPECT_EQ(value_of(p, "HTTP_PROXY"), "http://127.0.0.1:3128");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("--env HTTP_PROXY=http://corp-proxy:8080 is replaced"), std::string::npos)
      << p.warnings[0];
}

TEST(ProxyEnv, NameMatchIsExact) {
  // HTTP_PROXY_X is another variable; it must neither match nor be changed.
  auto p = proxy_environment(kFilter, {"HTTP_PROXY_X=1"});
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(value_of(p, "HTTP_PROXY"), "http://127.0.0.1:3128");
}

TEST(ProxyEnv, MergeDropsBlanksAndDuplicates) {
  EXPECT_EQ(merge_no_proxy(" a ,,b,a", "b,c"), "a,b,c");
  EXPECT_EQ(merge_no_proxy("", "x"), "x");
}

}  // namespace
}  // namespace paddock::net
