// Allocation-free helpers for the child between clone and exec: no malloc, no locks, no stdio.
#pragma once

#include <errno.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace paddock::sys {

// Writes all of buf, retrying on EINTR and short writes. Returns false on error.
inline bool write_all(int fd, const void* buf, std::size_t len) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    ssize_t n = ::write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return true;
}

// Appends src to a fixed buffer; truncates rather than overflows. Returns the new length.
inline std::size_t append(char* buf, std::size_t cap, std::size_t len, const char* src) {
  while (*src && len + 1 < cap) buf[len++] = *src++;
  buf[len] = '\0';
  return len;
}

// Formats an unsigned number into buf (decimal). Returns the length.
inline std::size_t format_uint(char* buf, std::size_t cap, unsigned long v) {
  char tmp[24];
  std::size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v && n < sizeof(tmp));
  std::size_t i = 0;
  while (n > 0 && i + 1 < cap) buf[i++] = tmp[--n];
  buf[i] = '\0';
  return i;
}

}  // namespace paddock::sys
