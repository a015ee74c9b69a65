// The files of a git objects directory a run may have written, as paddock reads them: by name
// (loose objects in fan-out directories, packs in pack/), never following a link, never opening
// anything but a regular file. Shared by the private objects' import and the check of a
// repository's own objects. Internal to src/jail.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "paddock/result.h"
#include "sys/unique_fd.h"

namespace paddock::jail {

bool all_hex(std::string_view s);
// A loose object's file name in a fan-out directory: 38 (SHA-1) or 62 (SHA-256) hex digits.
bool loose_name(std::string_view n);
// "pack-<hex>" when N is pack-<hex>EXT (".pack", ".idx"), else "".
std::string pack_base(std::string_view n, std::string_view ext);
// The names in an open directory, sorted ("." and ".." left out); empty when unreadable.
std::vector<std::string> entries(int dirfd);
// Copies the regular file NAME in FROM (never following a link, never opening a FIFO or
// device: a run may have left anything there, and may still be writing) to TO_NAME in TO,
// which must not exist.
bool copy_regular(int from, const std::string& name, int to, const std::string& to_name);
// The regular file NAME in DIRFD, whole.
std::optional<std::string> read_all(int dirfd, const std::string& name);
// Makes PATH (its parent must exist; no symlink followed on the way) a directory only the caller
// can use, 0700 (a looser mode is set back), and opens it: refused when it is someone else's.
Result<sys::UniqueFd> private_dir(const std::string& path);
// Makes NAME in DIRFD a regular file of MODE holding exactly CONTENT: left alone when it is one
// (no write, no fsync: what runs before every run stays cheap), else replaced (temp, fsync,
// rename; a link or anything else there is replaced, never followed).
Result<void> keep_file(int dirfd, const std::string& name, std::string_view content, mode_t mode);

}  // namespace paddock::jail
