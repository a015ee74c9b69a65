// A profile's [command] applied to the command line of the agent it is for: the arguments that
// tell the agent paddock is its sandbox, and the user's own choices that cannot work inside.
#pragma once

#include <string>
#include <vector>

#include "paddock/policy.h"

namespace paddock {

struct CommandAdjustment {
  std::vector<std::string> argv;       // the command line to run
  bool applied = false;                // the command is the profile's (its args were inserted)
  std::vector<std::string> conflicts;  // the user's arguments that match a conflict, as written
};

// When argv[0]'s last component is setup.name: setup.args right after argv[0] (so the user's own
// arguments, which follow, win), and every conflict found among the user's arguments (up to a
// "--"). "FLAG VALUE" matches `FLAG VALUE`, `FLAG=VALUE` and, for a one-letter FLAG, `FLAGVALUE`;
// "FLAG" matches `FLAG` and `FLAG=...`. Otherwise argv unchanged.
CommandAdjustment adjust_command(const std::vector<std::string>& argv, const PolicyBuilder::CommandSetup& setup);

}  // namespace paddock
