// The invoking user's passwd entry (name and home), read the cheap way when that gives the same
// answer: when /etc/nsswitch.conf consults `files` first for passwd and /etc/passwd has the uid,
// that line is what getpwuid(3) returns. Otherwise (another source first, compat-style +/- lines,
// no such line, unreadable files) it asks getpwuid_r, which in a static binary costs ~100 us at
// start-up: NSS set-up and nscd probes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paddock {

struct PasswdEntry {
  std::string name;
  std::string dir;
};

// What the files source answers for `uid`, given the two files' text; nullopt when the answer
// must come from NSS instead.
std::optional<PasswdEntry> passwd_from_files(unsigned uid, std::string_view nsswitch_conf,
                                             std::string_view etc_passwd);

// The entry for `uid`: passwd_from_files on the real files, else getpwuid_r. nullopt when there
// is none.
std::optional<PasswdEntry> lookup_passwd(unsigned uid);

}  // namespace paddock
