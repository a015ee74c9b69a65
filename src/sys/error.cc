#include "paddock/result.h"

#include <cstring>

namespace paddock {

std::string Error::describe() const {
  std::string out;
  if (!where.empty()) out += where + ": ";
  out += message;
  if (sys_errno != 0) {
    out += ": ";
    out += std::strerror(sys_errno);
  }
  return out;
}

Error make_error(std::string message, std::string where, std::string hint) {
  Error e;
  e.message = std::move(message);
  e.where = std::move(where);
  e.hint = std::move(hint);
  return e;
}

Error errno_error(std::string message, int err, std::string where) {
  Error e;
  e.message = std::move(message);
  e.sys_errno = err;
  e.where = std::move(where);
  return e;
}

}  // namespace paddock
