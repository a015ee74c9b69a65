// Creating a directory under a root the user owns (an agent's state directory in HOME) without
// following any symlink below the root: a link planted at ~/.claude cannot make paddock create
// directories elsewhere.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "paddock/result.h"

namespace paddock::sys {

// Makes `path` (absolute, lexically normal, strictly under `root`) a directory, creating missing
// components with `mode` one by one through directory descriptors (mkdirat, then openat with
// O_NOFOLLOW | O_DIRECTORY). True when something was created, false when it was all there. An
// existing component that is a symlink or not a directory is an error naming it.
Result<bool> make_dir_under(const std::string& root, const std::string& path, mode_t mode);

// Makes `path` (strictly under `root`) a regular file holding `content`, with `mode`, when it is
// missing: its parent as make_dir_under (0700), the file O_CREAT | O_EXCL | O_NOFOLLOW, written
// and fsynced (removed again if the write fails). True when created; false when a regular file
// was there (never replaced); an error when something else is there.
Result<bool> make_file_under(const std::string& root, const std::string& path, std::string_view content,
                             mode_t mode);

}  // namespace paddock::sys
