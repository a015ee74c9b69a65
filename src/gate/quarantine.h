// Shared by the after-run checks: when an inode changed (its ctime), and moving a file the host
// would run out of the way, beside itself, relative to a directory descriptor (nothing followed).
#pragma once

#include <sys/stat.h>
#include <time.h>

#include <map>
#include <string>
#include <utility>

namespace paddock::gate {

// When an inode changed. The kernel sets ctime on every write, rename, link and chmod, and
// nothing in user space can set it back, so an inode whose ctime is at or after the start of a
// run was created or changed since then. The start is read from the kernel's coarse clock, which
// ctime is never earlier than: nothing the run does is missed. The inodes known before the run are
// recorded with their ctime and compared exactly, so that a host change in the clock tick just
// before the run (a multigrain ctime may lie ahead of the coarse clock) is not taken for the run's.
// An inode not recorded that the host changed in that tick is taken for the run's: an extra line,
// never a miss. (Waiting in the child until the coarse clock had passed a real-time start would
// remove that, but cost about 3 ms of every start, half a 4 ms tick on average: tried, undone.)
class Baseline {
 public:
  void start();                             // now, from the coarse clock
  void record(const struct stat& st);       // an inode as it is before the run
  bool changed(const struct stat& st) const;  // created or changed since start()

 private:
  struct timespec since_{};
  std::map<std::pair<dev_t, ino_t>, struct timespec> known_;
};

// Renames NAME in DIRFD to NAME.paddock-quarantine (.1, .2, ... when taken; never replaces) and
// returns what was done, for LeftBehind::action. PATH is NAME's full path, for the message.
std::string move_aside(int dirfd, const std::string& name, const std::string& path, const std::string& used_by);

// Renames NAME in DIRFD to NAME.SUFFIX (.1, .2, ... when taken; never replaces) and returns the
// new name, or "" with errno set.
std::string rename_aside(int dirfd, const std::string& name, const char* suffix);

}  // namespace paddock::gate
