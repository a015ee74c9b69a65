// Creating a directory under a root the user owns (an agent's state directory in HOME) without
// following any symlink below the root: a link planted at ~/.claude cannot make paddock create
// directories elsewhere.
#pragma once

#include <sys/types.h>

#include <string>

#include "paddock/result.h"

namespace paddock::sys {

// Makes `path` (absolute, lexically normal, strictly under `root`) a directory, creating missing
// components with `mode` one by one through directory descriptors (mkdirat, then openat with
// O_NOFOLLOW | O_DIRECTORY). True when something was created, false when it was all there. An
// existing component that is a symlink or not a directory is an error naming it.
Result<bool> make_dir_under(const std::string& root, const std::string& path, mode_t mode);

}  // namespace paddock::sys
