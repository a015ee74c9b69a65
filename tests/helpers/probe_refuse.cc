// paddock-probe refuse NAME[,NAME...] CMD [ARGS...]: runs CMD under a seccomp filter that
// answers the named system calls with EPERM and allows everything else, as a container runtime's
// default profile does (podman's refuses sethostname; moby's refuses mount, pivot_root, ... to a
// container without CAP_SYS_ADMIN). The filter is inherited by CMD's children: paddock and its
// sandboxes see exactly what they would see in such a container. Exit 2 on bad usage.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kArch = 0;
#endif

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

struct Named {
  const char* name;
  long nr;
};
constexpr Named kCalls[] = {
    {"sethostname", SYS_sethostname}, {"mount_setattr", SYS_mount_setattr}, {"pivot_root", SYS_pivot_root},
    {"umount2", SYS_umount2},         {"unshare", SYS_unshare},             {"mount", SYS_mount},
};

long number_of(const std::string& name) {
  for (const Named& c : kCalls)
    if (name == c.name) return c.nr;
  return -1;
}

}  // namespace

int probe_refuse(int argc, char** argv) {
  if (argc < 2 || kArch == 0) {
    fprintf(stderr, "usage: paddock-probe refuse NAME[,NAME...] CMD [ARGS...]\n");
    return 2;
  }
  std::vector<long> nrs;
  std::string names = argv[0];
  for (std::size_t pos = 0; pos <= names.size();) {
    std::size_t comma = names.find(',', pos);
    if (comma == std::string::npos) comma = names.size();
    long nr = number_of(names.substr(pos, comma - pos));
    if (nr < 0) {
      fprintf(stderr, "paddock-probe refuse: unknown system call \"%s\"\n", names.substr(pos, comma - pos).c_str());
      return 2;
    }
    nrs.push_back(nr);
    pos = comma + 1;
  }
  std::vector<sock_filter> prog = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
  };
  for (long nr : nrs) {
    prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 1));
    prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  }
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog fprog = {static_cast<unsigned short>(prog.size()), prog.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) < 0) {
    fprintf(stderr, "paddock-probe refuse: cannot install the filter: %s\n", strerror(errno));
    return 2;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "paddock-probe refuse: exec %s: %s\n", argv[1], strerror(errno));
  return 127;
}
