// For the HTTP transport's unit tests: one raw request over a new loopback connection, and the
// reply parsed (status, lower-case headers, body). Test-only: no .cc, never in the library.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <string>

namespace paddock::mcp {

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

// Sends REQUEST (a whole HTTP/1.1 request with "Connection: close") and reads until the server
// closes; status 0 when no reply head came.
inline HttpReply http_exchange(std::uint16_t port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string raw;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  HttpReply r;
  auto end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return r;
  r.status = std::stoi(raw.substr(9, 3));
  std::size_t pos = raw.find("\r\n") + 2;
  while (pos < end) {
    auto e = raw.find("\r\n", pos);
    auto line = raw.substr(pos, e - pos);
    auto colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[name] = line.substr(colon + 2);
    pos = e + 2;
  }
  r.body = raw.substr(end + 4);
  return r;
}

}  // namespace paddock::mcp
