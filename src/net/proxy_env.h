// The proxy variables a filtered sandbox gets, and what happens to the ones the user set with
// --env (issue 13, bug 2). The egress filter is the sandbox's only way out, so its HTTP_PROXY,
// HTTPS_PROXY and ALL_PROXY win; a user's value for one of them is replaced, and said so. NO_PROXY
// is merged: the user's entries are kept (a client that skips the proxy for them still goes
// through the filter's transparent listeners, so nothing is opened by it) and the filter's
// loopback entries are added.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace paddock::net {

struct ProxyEnvironment {
  std::vector<std::pair<std::string, std::string>> set;  // NAME, VALUE to put in the environment
  std::vector<std::string> warnings;                       // one line per user value replaced
};

// `filter_env` is Filter::environment(); `env` the sandbox's "NAME=VALUE" entries so far (what the
// policy passed and set). Pure: the caller applies `set`.
ProxyEnvironment proxy_environment(const std::vector<std::pair<std::string, std::string>>& filter_env,
                                   const std::vector<std::string>& env);

// "a,b" + "b,c" -> "a,b,c": comma-separated lists merged, order kept, duplicates and blanks dropped.
std::string merge_no_proxy(const std::string& user, const std::string& filter);

}  // namespace paddock::net
