// --net-log FILE: the egress filter's decisions as JSON lines, appended as they happen
// (docs/network.md): each new target at once, its repeats at the 10th, 100th, ... time with the
// count so far. The file is opened before the run, its directory with no symlink followed (it
// may lie where the sandbox can write); nothing in it is overwritten.
#pragma once

#include <functional>
#include <string>

#include "paddock/network_decision.h"
#include "paddock/policy.h"
#include "paddock/result.h"

namespace paddock {

// The sink for RunOptions::on_network_decision. Refused when POLICY's network is not filtered
// (there would be no decisions) or the file cannot be opened; errors name "--net-log PATH".
Result<std::function<void(const NetworkDecision&)>> open_net_log(const std::string& path, const Policy& policy);

}  // namespace paddock
