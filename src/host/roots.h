// A host user's project roots, resolved, and whether a directory lies in one of them.
#pragma once

#include <string>
#include <vector>

#include "host/config.h"
#include "host/users.h"
#include "paddock/policy.h"
#include "paddock/result.h"

namespace paddock::host {

struct ResolvedRoot {
  std::string given;  // as written in host.toml
  std::string where;  // file:line:col
  std::string path;   // canonical (symlinks resolved); "" when the root cannot be used
  std::string note;   // why it cannot be used ("does not exist", ...)
};

// Expands "~" to USER's passwd home, resolves symlinks through FS and refuses, with a note, a root
// that does not exist, is not a directory, resolves (through a symlink) to "/" or to something
// that contains a login user's home without allow_broad, or, written with "~", resolves outside
// the user's own home.
std::vector<ResolvedRoot> resolve_roots(const UserEntry& entry, const UserInfo& user, const FsView& fs,
                                        const std::vector<UserInfo>& login_users);

// CWD is the kernel's name of the working directory (getcwd: no symlinks, no "..").
// Returns the root it lies in, or an error whose message lists the user's roots.
Result<ResolvedRoot> check_cwd(const std::string& cwd, const std::vector<ResolvedRoot>& roots,
                               const std::string& user, const FsView& fs);

// "  ~/src  (/home/alice/src)" lines, one per root, with notes for the unusable ones.
std::string describe_roots(const std::vector<ResolvedRoot>& roots);

}  // namespace paddock::host
