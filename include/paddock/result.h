// Errors are values in the library; only the CLI turns them into text and exit codes.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace paddock {

// What went wrong: a message a person can act on, the errno when a syscall failed,
// and where (a path, "file:line:col", a setup step) when there is one.
struct Error {
  std::string message;
  int sys_errno = 0;
  std::string where;
  std::string hint;

  // "where: message: strerror(errno)" — the one way an error is printed.
  std::string describe() const;
};

Error make_error(std::string message, std::string where = {}, std::string hint = {});
Error errno_error(std::string message, int err = errno, std::string where = {});

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }
  Error&& take_error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return err_; }
  Error&& take_error() && { return std::move(err_); }

 private:
  Error err_;
  bool ok_ = true;
};

inline Result<void> ok_result() { return {}; }

}  // namespace paddock
