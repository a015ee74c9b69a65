// The cost of recording exact denials through seccomp user notification (issue 28, part 1):
// a file-heavy workload (stat, open, read and close every file of a tree, as `git status` and a
// recursive read do) run three ways in one process, ratios against the first:
//   plain   — no filter beyond none (the anchor);
//   allow   — a filter that matches the path-taking calls and returns ALLOW (the BPF cost alone);
//   notify  — the same calls sent to a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER) that a
//             supervisor thread answers with SECCOMP_USER_NOTIF_FLAG_CONTINUE, as a recorder that
//             lets the kernel's layers decide would (the round trip per trapped call).
// usage: paddock-notify-bench DIR [ROUNDS]   (DIR: a tree to walk; prints one line per mode, best of 5)
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

const long kTrapped[] = {SYS_openat, SYS_openat2, SYS_newfstatat, SYS_statx, SYS_faccessat, SYS_faccessat2,
                         SYS_readlinkat, SYS_execve, SYS_connect};

std::vector<sock_filter> filter(std::uint32_t action) {
  std::vector<sock_filter> f;
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  for (long nr : kTrapped) {
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 1));
    f.push_back(BPF_STMT(BPF_RET | BPF_K, action));
  }
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  return f;
}

long files_seen = 0;

void walk(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    std::string p = dir + "/" + e->d_name;
    struct stat st;
    if (fstatat(AT_FDCWD, p.c_str(), &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(p);
    } else if (S_ISREG(st.st_mode)) {
      int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char buf[4096];
      while (read(fd, buf, sizeof buf) > 0) {
      }
      close(fd);
      ++files_seen;
    }
  }
  closedir(d);
}

void answer(int listener) {
  seccomp_notif_sizes sizes{};
  syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
  std::vector<char> req_buf(sizes.seccomp_notif), resp_buf(sizes.seccomp_notif_resp);
  for (;;) {
    memset(req_buf.data(), 0, req_buf.size());
    auto* req = reinterpret_cast<seccomp_notif*>(req_buf.data());
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
      if (errno == EINTR) continue;
      return;  // the child is gone
    }
    memset(resp_buf.data(), 0, resp_buf.size());
    auto* resp = reinterpret_cast<seccomp_notif_resp*>(resp_buf.data());
    resp->id = req->id;
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
  }
}

// Runs the walk ROUNDS times in a child under MODE; returns seconds (the child's own clock).
// One byte and room for one descriptor: the message that carries the listener to the supervisor.
struct FdMessage {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof cbuf;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

double run(const char* mode, const std::string& dir, int rounds) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (strcmp(mode, "plain") != 0) {
      bool notify = strcmp(mode, "notify") == 0;
      auto f = filter(notify ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW);
      sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
      long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
      if (fd < 0) _exit(3);
      if (notify) {
        FdMessage m;
        msghdr& msg = m.msg;
        cmsghdr* c1 = CMSG_FIRSTHDR(&msg);
        c1->cmsg_level = SOL_SOCKET;
        c1->cmsg_type = SCM_RIGHTS;
        c1->cmsg_len = CMSG_LEN(sizeof(int));
        int ifd = static_cast<int>(fd);
        memcpy(CMSG_DATA(c1), &ifd, sizeof ifd);
        if (sendmsg(sv[1], &msg, 0) < 0) _exit(4);
        close(ifd);
      }
    }
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < rounds; ++i) walk(dir);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (write(sv[1], &s, sizeof s) != sizeof s) _exit(5);
    _exit(files_seen > 0 ? 0 : 6);
  }
  close(sv[1]);
  std::thread supervisor;
  if (strcmp(mode, "notify") == 0) {
    FdMessage m;
    msghdr& msg = m.msg;
    if (recvmsg(sv[0], &msg, 0) <= 0) {
      fprintf(stderr, "no listener\n");
      exit(1);
    }
    int listener;
    memcpy(&listener, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof listener);
    supervisor = std::thread([listener] {
      answer(listener);
      close(listener);
    });
  }
  double s = -1;
  if (read(sv[0], &s, sizeof s) != sizeof s) s = -1;
  int status = 0;
  waitpid(pid, &status, 0);
  if (supervisor.joinable()) supervisor.join();
  close(sv[0]);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: child failed (status %d)\n", mode, status);
    exit(1);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  int rounds = argc > 2 ? atoi(argv[2]) : 3;
  run("plain", dir, 1);  // warm the caches
  double best[3] = {1e9, 1e9, 1e9};
  const char* modes[3] = {"plain", "allow", "notify"};
  for (int rep = 0; rep < 5; ++rep) {
    for (int m = 0; m < 3; ++m) best[m] = std::min(best[m], run(modes[m], dir, rounds));
  }
  for (int m = 0; m < 3; ++m) printf("%-7s %8.3f s  ratio %.2f\n", modes[m], best[m], best[m] / best[0]);
  return 0;
}
