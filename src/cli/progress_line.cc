#include "cli/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace paddock::cli {

ProgressLine::ProgressLine(const char* after_env)
    : start_(std::chrono::steady_clock::now()), terminal_(::isatty(STDERR_FILENO) == 1) {
  if (const char* t = after_env ? std::getenv(after_env) : nullptr; t != nullptr && *t != '\0')
    after_ = std::strtod(t, nullptr) / 1000.0;
}

void ProgressLine::update(const std::function<std::string(double)>& text) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (secs < after_ || secs <= 0) return;
  if (!terminal_ && last_ >= 0 && secs - last_ < kLogSeconds) return;
  // A terminal's line is rewritten at most ten times a second.
  if (terminal_ && last_ >= 0 && secs - last_ < 0.1) return;
  last_ = secs;
  printed_ = true;
  std::fprintf(stderr, "%s[paddock] %s%s", terminal_ ? "\r" : "", text(secs).c_str(), terminal_ ? "   " : "\n");
}

void ProgressLine::finish() {
  if (printed_ && terminal_) std::fputc('\n', stderr);
  printed_ = false;
}

}  // namespace paddock::cli
