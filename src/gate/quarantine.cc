#include "gate/quarantine.h"
#include "sys/syscalls.h"

#include <linux/fs.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace paddock::gate {

void Baseline::start() { clock_gettime(CLOCK_REALTIME_COARSE, &since_); }

void Baseline::record(const struct stat& st) { known_[{st.st_dev, st.st_ino}] = st.st_ctim; }

bool Baseline::changed(const struct stat& st) const {
  auto it = known_.find({st.st_dev, st.st_ino});
  if (it != known_.end())
    return it->second.tv_sec != st.st_ctim.tv_sec || it->second.tv_nsec != st.st_ctim.tv_nsec;
  // A file system that keeps whole (or FAT's even) seconds writes .tv_nsec 0: compared coarsely.
  if (st.st_ctim.tv_nsec == 0) return st.st_ctim.tv_sec + 2 > since_.tv_sec;
  return st.st_ctim.tv_sec > since_.tv_sec ||
         (st.st_ctim.tv_sec == since_.tv_sec && st.st_ctim.tv_nsec >= since_.tv_nsec);
}

std::string move_aside(int dirfd, const std::string& name, const std::string& path, const std::string& used_by) {
  // The first free of NAME.paddock-quarantine, .1, ... .99; then, and for a name too long to take
  // a suffix, .paddock-quarantine.RANDOM: the sandbox may have taken every name it can predict,
  // or chosen a 255-byte name, to keep the file where it is.
  bool random_only = false;
  for (int i = 0; i < 103; ++i) {
    std::string aside;
    if (i < 100 && !random_only) {
      aside = name + ".paddock-quarantine" + (i ? "." + std::to_string(i) : "");
    } else {
      std::uint64_t r = 0;
      if (getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) break;
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r));
      aside = ".paddock-quarantine." + std::string(hex);  // no extension a loader could match
    }
    if (sys::renameat2(dirfd, name.c_str(), dirfd, aside.c_str(), RENAME_NOREPLACE) == 0) {
      const std::string moved = path.substr(0, path.size() - name.size()) + aside;
      return "moved aside to " + moved + "; if you trust it: mv " + moved + " " + path;
    }
    if (errno == ENAMETOOLONG && !random_only) {
      random_only = true;
      i = 99;
      continue;
    }
    if (errno != EEXIST)
      return std::string("could not move it aside (") + std::strerror(errno) + "): remove it before " + used_by;
  }
  return "could not move it aside: remove it before " + used_by;
}

std::string rename_aside(int dirfd, const std::string& name, const char* suffix) {
  for (int i = 0; i < 100; ++i) {
    std::string aside = name + "." + suffix + (i ? "." + std::to_string(i) : "");
    if (sys::renameat2(dirfd, name.c_str(), dirfd, aside.c_str(), RENAME_NOREPLACE) == 0) return aside;
    if (errno != EEXIST) return "";
  }
  errno = EEXIST;
  return "";
}

}  // namespace paddock::gate
