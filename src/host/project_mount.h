// How the agent user gets the project: an idmapped mount (mount_setattr(2), MOUNT_ATTR_IDMAP),
// made in the runner's own mount namespace and gone with it.
//
// The project's owner (the host user) and their primary group appear as the agent user and
// group inside; what the agent writes lands on disk as the host user's uid and primary gid, so
// the project stays the user's own: no chown, no ACL, no shared group, nothing left on the disk
// and no standing access of the agent user to anything of the user's. Files of other owners appear
// as nobody and give the agent only their "other" permission bits. Nothing else of the user's
// is mounted: directories above the project the agent user cannot enter are covered by a small
// tmpfs that holds only the path down to the project.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::host {

struct IdMap {
  uid_t host_uid = 0;  // on disk
  gid_t host_gid = 0;
  uid_t agent_uid = 0;  // as seen through the mount
  gid_t agent_gid = 0;
};

// A user namespace whose only mappings are host_uid -> agent_uid and host_gid -> agent_gid (the
// form mount_setattr takes an idmapping in). Root only.
Result<sys::UniqueFd> idmap_userns(const IdMap& m);

// The first directory on the way to PATH (exclusive) that UID/GIDS cannot search, by its mode
// bits; "" when there is none.
std::string first_unsearchable_parent(const std::string& path, uid_t uid, const std::vector<gid_t>& gids);

// A detached copy of the mount of DIRFD (the project, opened before any check, so the checked
// directory is the one mounted), idmapped with USERNS_FD, nosuid and nodev. Made in the mount
// namespace DIRFD belongs to, before the runner leaves it.
Result<sys::UniqueFd> clone_project(int dirfd, int userns_fd, const std::string& path);

// In the calling process's (private) mount namespace: puts TREE at PATH. When COVER is not empty
// (an ancestor of PATH) a tmpfs first covers it with just the directories down to PATH.
Result<void> attach_project(int tree, const std::string& path, const std::string& cover);

// unshare(CLONE_NEWNS) with every mount made a slave: what the runner mounts stays its own.
Result<void> private_mount_namespace();

}  // namespace paddock::host
