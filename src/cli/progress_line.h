// A progress line on stderr for work that may take a while (undo's first snapshot, the copy a
// jail is made from): nothing during the first second; then on a terminal one line rewritten in
// place, elsewhere (a log) a whole line at most every kLogSeconds, so a log stays short however
// long the work takes.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace paddock::cli {

class ProgressLine {
 public:
  static constexpr double kLogSeconds = 5.0;
  // AFTER_ENV names a variable (milliseconds) that moves the first second: a test hook, so tests
  // show the line without work that takes a second.
  explicit ProgressLine(const char* after_env);
  // TEXT(seconds since the start) is printed, after "[paddock] ", when a line is due.
  void update(const std::function<std::string(double)>& text);
  // Ends a terminal's line, when one was printed.
  void finish();
  bool printed() const { return printed_; }

 private:
  std::chrono::steady_clock::time_point start_;
  double after_ = 1.0;
  double last_ = -1.0;
  bool terminal_ = false;
  bool printed_ = false;
};

}  // namespace paddock::cli
