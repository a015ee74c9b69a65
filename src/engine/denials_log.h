// `paddock run --denials FILE`: what the sandbox was refused, as JSON lines (paddock.denial/1,
// docs/supervisor.md), appended while the run goes on.
#pragma once

#include <functional>
#include <string>

#include "paddock/denial.h"
#include "paddock/result.h"

namespace paddock {

// Opens FILE for appending before the run: its directory with no symlink followed at any
// component (it may lie where the sandbox can write), the file itself O_NOFOLLOW. The returned
// callback (RunOptions::on_denial) writes each line it is given with one write(2) (O_APPEND:
// lines never interleave) and fdatasync(2), so a line written is on disk when paddock or the
// machine dies; a torn last line can only be one a crash cut, and readers skip it. What the
// sandbox chose (paths, names, comm) is escaped by the JSON serializer, bytes that are not UTF-8
// replaced.
Result<std::function<void(const Denial&)>> open_denials_log(const std::string& path);

}  // namespace paddock
