// Test-only loopback servers (127.0.0.1, ephemeral ports, this process's network namespace) and
// small blocking clients. Header-only; included by *_test.cc only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "net/sniff.h"
#include "sys/unique_fd.h"

namespace paddock::net::testing {

inline sys::UniqueFd listen_loopback(std::uint16_t* port, int type = SOCK_STREAM) {
  sys::UniqueFd fd(::socket(AF_INET, type | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) return {};
  if (type == SOCK_STREAM && ::listen(fd.get(), 128) != 0) return {};
  socklen_t l = sizeof(sa);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &l);
  *port = ntohs(sa.sin_port);
  return fd;
}

inline sys::UniqueFd connect_to(std::uint32_t addr_host_order, std::uint16_t port) {
  sys::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(addr_host_order);
  sa.sin_port = htons(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) return {};
  timeval tv{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

inline bool send_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Reads until EOF (or timeout, or max bytes).
inline std::string read_all(int fd, std::size_t max = 1u << 30) {
  std::string out;
  char buf[65536];
  while (out.size() < max) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

inline std::string read_n(int fd, std::size_t n) {
  std::string out;
  char buf[4096];
  while (out.size() < n) {
    ssize_t r = ::recv(fd, buf, std::min(sizeof(buf), n - out.size()), 0);
    if (r <= 0) break;
    out.append(buf, static_cast<std::size_t>(r));
  }
  return out;
}

// A server on 127.0.0.1 that runs `handler` on each connection in its own thread.
class Server {
 public:
  using Handler = std::function<void(int fd)>;
  explicit Server(Handler h) : handler_(std::move(h)) {
    fd_ = listen_loopback(&port_);
    thread_ = std::thread([this] {
      while (true) {
        pollfd p{fd_.get(), POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) {
          if (stop_) return;
          continue;
        }
        int c = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) continue;
        ++accepted_;
        workers_.emplace_back([this, c] {
          timeval tv{10, 0};
          ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
          handler_(c);
          ::close(c);
        });
      }
    });
  }
  ~Server() {
    stop_ = true;
    thread_.join();
    for (auto& w : workers_) w.join();
  }
  std::uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }

  // Plain HTTP: answers every request with 200 and a body naming the request line and Host.
  static Handler http() {
    return [](int fd) {
      std::string buf;
      HttpHead head;
      char tmp[4096];
      while (parse_http_head(buf, &head) == Parse::Incomplete) {
        ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<std::size_t>(n));
      }
      const std::string* host = head.header("Host");
      std::string body = head.method + " " + head.target + " host=" + (host ? *host : "") + "\n";
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                       "\r\nConnection: close\r\n\r\n" + body);
    };
  }
  // Echoes everything until EOF.
  static Handler echo() {
    return [](int fd) {
      char tmp[65536];
      while (true) {
        ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) return;
        if (!send_all(fd, std::string_view(tmp, static_cast<std::size_t>(n)))) return;
      }
    };
  }
  // Speaks first, like ssh: a banner, then echo.
  static Handler banner_then_echo() {
    return [](int fd) {
      send_all(fd, "SSH-2.0-paddock-test\r\n");
      echo()(fd);
    };
  }
  // TLS-ish: reads one ClientHello record and answers "hello <sni>\n".
  static Handler tls_hello() {
    return [](int fd) {
      std::string buf;
      std::string sni;
      char tmp[4096];
      while (parse_tls_sni(reinterpret_cast<const std::uint8_t*>(buf.data()), buf.size(), &sni) ==
             Parse::Incomplete) {
        ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<std::size_t>(n));
      }
      send_all(fd, "hello " + sni + "\n");
    };
  }
  // Sends `bytes` bytes after reading a request line, then closes.
  static Handler source(std::size_t bytes) {
    return [bytes](int fd) {
      char tmp[512];
      if (::recv(fd, tmp, sizeof(tmp), 0) <= 0) return;
      std::string chunk(1 << 20, 'x');
      std::size_t left = bytes;
      while (left > 0) {
        std::size_t n = std::min(left, chunk.size());
        if (!send_all(fd, std::string_view(chunk.data(), n))) return;
        left -= n;
      }
    };
  }

 private:
  Handler handler_;
  sys::UniqueFd fd_;
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
};

}  // namespace paddock::net::testing
