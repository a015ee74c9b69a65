// The flags that show a command the sandbox cannot see (the "exists on the host but the sandbox
// cannot see it" warning). A launcher reached through a symlink (npm's .bin, ~/.npm-global/bin,
// nvm shims, ~/.local/bin) needs its link and the package the link points into: binding the
// target file alone leaves the script without the rest of its package (issue 13, bug 4).
#pragma once

#include <string>

#include "paddock/policy.h"

namespace paddock {

// "--read PATH (or its directory)" for a plain file; "--read LINK --read PACKAGE" for a symlink,
// PACKAGE being the nearest directory above the target holding a package.json (below HOME, at
// most 8 levels up), else the target's directory.
std::string command_grant_flags(const std::string& path, const std::string& home, const FsView& fs);

}  // namespace paddock
