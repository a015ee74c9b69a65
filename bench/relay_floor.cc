// The relay floor for bench/net_bench.sh: the least work any proxy that relays a TCP connection
// must do, and nothing else. It listens on 127.0.0.1, connects every accepted connection to one
// fixed upstream, and moves the bytes with splice(2) through a 1 MiB pipe per direction, one
// blocking thread per direction: no protocol, no policy, no DNS, no epoll, no logging. The client
// still crosses two TCP connections, as it does through paddock's egress filter (or any HTTP
// proxy); what this loses against a direct connection is the cost of that second connection.
//
// usage: paddock-relay-floor PORT_FILE UPSTREAM_PORT   (writes its own port to PORT_FILE)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "paddock-relay-floor: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// src -> dst until EOF, then half-close dst.
void pump(int src, int dst) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) die("pipe2");
  fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
  while (true) {
    ssize_t n = splice(src, nullptr, p[1], nullptr, 1 << 20, SPLICE_F_MOVE);
    if (n <= 0) break;
    while (n > 0) {
      ssize_t m = splice(p[0], nullptr, dst, nullptr, static_cast<size_t>(n), SPLICE_F_MOVE);
      if (m <= 0) goto out;
      n -= m;
    }
  }
out:
  shutdown(dst, SHUT_WR);
  close(p[0]);
  close(p[1]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: paddock-relay-floor PORT_FILE UPSTREAM_PORT\n");
    return 2;
  }
  int upstream_port = std::atoi(argv[2]);
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) die("socket");
  sockaddr_in a = loopback(0);
  if (bind(l, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(l, 512) != 0) die("listen");
  socklen_t al = sizeof(a);
  getsockname(l, reinterpret_cast<sockaddr*>(&a), &al);
  if (FILE* f = std::fopen(argv[1], "w")) {
    std::fprintf(f, "%d", ntohs(a.sin_port));
    std::fclose(f);
  } else {
    die(argv[1]);
  }
  while (true) {
    int c = accept4(l, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    std::thread([c, upstream_port] {
      int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in up = loopback(upstream_port);
      if (u < 0 || connect(u, reinterpret_cast<sockaddr*>(&up), sizeof(up)) != 0) {
        close(c);
        if (u >= 0) close(u);
        return;
      }
      std::thread down(pump, u, c);
      pump(c, u);
      down.join();
      close(c);
      close(u);
    }).detach();
  }
}
