// Shared by the after-run checks: when an inode changed (its ctime), and moving a file the host
// would run out of the way, beside itself, relative to a directory descriptor (nothing followed).
#pragma once

#include <sys/stat.h>
#include <time.h>

#include <map>
#include <string>
#include <utility>

namespace paddock::guard {

// When an inode changed. The kernel sets ctime on every write, rename, link and chmod, and
// nothing in user space can set it back. A host change made before start() has a ctime no later
// than the moment it was made (the coarse clock, or a finer stamp, never ahead of real time), so
// below start()'s reading of the real-time clock. The sandbox's changes come later, and the
// command is started only once the coarse clock is past every Baseline's start (guard::Watch::
// settled(), waited for in the child before exec), so their ctime is above it, even on a file
// system that stamps from the coarse clock. The inodes known before the run are also recorded and
// compared exactly.
class Baseline {
 public:
  void start();                             // now, from the real-time clock
  void record(const struct stat& st);       // an inode as it is before the run
  bool changed(const struct stat& st) const;  // created or changed since start()

 private:
  struct timespec since_{};
  std::map<std::pair<dev_t, ino_t>, struct timespec> known_;
};

// Renames NAME in DIRFD to NAME.paddock-quarantine (.1, .2, ... when taken; never replaces) and
// returns what was done, for LeftBehind::action. PATH is NAME's full path, for the message.
std::string move_aside(int dirfd, const std::string& name, const std::string& path, const std::string& used_by);

}  // namespace paddock::guard
