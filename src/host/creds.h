// Becoming another user, for good (the runner's children and the runner itself before the
// sandbox starts), and running a function as another user in a child process.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "paddock/result.h"

namespace paddock::host {

struct Identity {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups (the primary one included or not)
};

// setgroups, setresgid, setresuid, then checks that no id of root is left and that root cannot
// be regained. Irreversible.
Result<void> become(const Identity& who);

// Forks, becomes WHO in the child, runs FN there and returns the bytes it produced (at most
// LIMIT; more is an error). An error FN returns comes back as the error.
Result<std::string> run_as(const Identity& who, const std::function<Result<std::string>()>& fn,
                           std::size_t limit = 300u << 20);

}  // namespace paddock::host
