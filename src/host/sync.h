// Copying a user's agent config directory into the agent's isolated state.
//
// read_tree runs in a child process that has become the host user (the runner forks it), so
// that it reads only what that user could read: a symlink in their config dir to /etc/shadow is
// refused by the kernel, not by a check here. Symlinks are followed (home-manager renders config
// files as links into /nix/store). What it read travels to the runner as bytes (serialize /
// parse, bounded), and write_tree runs in a child that has become the agent user, so nothing the
// agent planted in its state can redirect a write anywhere the agent could not write itself.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "paddock/result.h"

namespace paddock::host {

struct SyncedFile {
  std::string rel;  // relative to the config dir, normal form
  bool dir = false;
  mode_t mode = 0600;  // permission bits (setuid, setgid and sticky dropped)
  std::string data;
};

struct SyncLimits {
  std::size_t max_entries = 20000;
  std::uint64_t max_bytes = 256ull << 20;
  int max_depth = 32;
};

// The tree under DIR (DIR missing: empty, not an error). Special files are skipped; a symlink
// loop or a directory reached twice is entered once. Over a limit: an error naming it.
Result<std::vector<SyncedFile>> read_tree(const std::string& dir, const SyncLimits& limits = {});

std::string serialize_tree(const std::vector<SyncedFile>& files);
// Inverse of serialize_tree, for bytes from a less trusted process: every path is checked.
Result<std::vector<SyncedFile>> parse_tree(std::string_view bytes);

// Writes FILES under HOME/REL (REL a normal relative path; its directories created 0700 as
// needed), replacing files of the same name, never following a symlink inside HOME.
// Files the tree does not have are left alone (the agent's own sessions and logins live there).
Result<void> write_tree(const std::string& home, const std::string& rel, const std::vector<SyncedFile>& files);

}  // namespace paddock::host
