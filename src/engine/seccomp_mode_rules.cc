// The set-id refusal (issue 12, item 3). A file the sandbox makes setuid or setgid stays so on
// the host, where nosuid no longer applies: root running paddock would leave a setuid-root copy
// of a shell for any local user who can reach the project. The mode is a plain syscall argument,
// so seccomp refuses it wherever a mode is given. Costs: `chmod g+s` on a directory is refused
// too (seccomp cannot tell a directory from a file), and openat2 (its mode is behind a pointer)
// answers ENOSYS, which libc and runtimes take as "use openat". Documented in docs/seccomp.md.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "engine/seccomp_policy_rules.h"

#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif

namespace paddock::engine {
namespace {

constexpr const char* kWhy = "a setuid/setgid file made inside stays set-id on the host";

// x86_64 numbers for calls newer than Debian 12's libseccomp.
#if defined(__x86_64__)
constexpr int kNrFchmodat2 = 452;
#else
constexpr int kNrFchmodat2 = -1;
#endif

}  // namespace

std::vector<SeccompRule> setid_mode_rules() {
  std::vector<SeccompRule> r;
  struct ModeCall {
    const char* name;
    unsigned mode_arg;
    const char* suid_label;
    const char* sgid_label;
    int nr_fallback;
  };
  static constexpr ModeCall kModeCalls[] = {
      {"chmod", 1, "chmod(S_ISUID)", "chmod(S_ISGID)", -1},
      {"fchmod", 1, "fchmod(S_ISUID)", "fchmod(S_ISGID)", -1},
      {"fchmodat", 2, "fchmodat(S_ISUID)", "fchmodat(S_ISGID)", -1},
      {"fchmodat2", 2, "fchmodat2(S_ISUID)", "fchmodat2(S_ISGID)", kNrFchmodat2},
      {"creat", 1, "creat(S_ISUID)", "creat(S_ISGID)", -1},
      {"mknod", 1, "mknod(S_ISUID)", "mknod(S_ISGID)", -1},
      {"mknodat", 2, "mknodat(S_ISUID)", "mknodat(S_ISGID)", -1},
      {"mkdir", 1, "mkdir(S_ISUID)", "mkdir(S_ISGID)", -1},
      {"mkdirat", 2, "mkdirat(S_ISUID)", "mkdirat(S_ISGID)", -1},
  };
  for (const ModeCall& c : kModeCalls) {
    r.push_back({c.name, EPERM, kWhy, c.mode_arg, S_ISUID, S_ISUID, c.suid_label, 0, 0, 0, c.nr_fallback});
    r.push_back({c.name, EPERM, kWhy, c.mode_arg, S_ISGID, S_ISGID, c.sgid_label, 0, 0, 0, c.nr_fallback});
  }
  // open and openat take a mode only with O_CREAT or O_TMPFILE: compare the flags too, so a
  // stray mode register on a plain open is never refused.
  struct OpenCall {
    const char* name;
    unsigned flags_arg, mode_arg;
    const char* labels[4];  // creat+suid, creat+sgid, tmpfile+suid, tmpfile+sgid
  };
  static constexpr OpenCall kOpenCalls[] = {
      {"open", 1, 2, {"open(O_CREAT, S_ISUID)", "open(O_CREAT, S_ISGID)", "open(O_TMPFILE, S_ISUID)", "open(O_TMPFILE, S_ISGID)"}},
      {"openat", 2, 3, {"openat(O_CREAT, S_ISUID)", "openat(O_CREAT, S_ISGID)", "openat(O_TMPFILE, S_ISUID)", "openat(O_TMPFILE, S_ISGID)"}},
  };
  for (const OpenCall& c : kOpenCalls) {
    const std::uint64_t flags[] = {O_CREAT, O_CREAT, O_TMPFILE, O_TMPFILE};
    const std::uint64_t bits[] = {S_ISUID, S_ISGID, S_ISUID, S_ISGID};
    for (int i = 0; i < 4; ++i) {
      r.push_back({c.name, EPERM, kWhy, c.flags_arg, flags[i], flags[i], c.labels[i], c.mode_arg, bits[i], bits[i]});
    }
  }
  r.push_back({"openat2", ENOSYS, "its mode is behind a pointer seccomp cannot read; libc falls back to openat"});
  return r;
}

}  // namespace paddock::engine
