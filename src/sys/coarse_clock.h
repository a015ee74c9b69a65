// Waiting for the kernel's coarse clock, which most file systems stamp ctime from, to pass a
// moment read from the real-time clock (guard/quarantine.h says why). Async-signal-safe: used in
// the sandbox's child before exec.
#pragma once

#include <time.h>

namespace paddock::sys {

// Sleeps a millisecond at a time until CLOCK_REALTIME_COARSE is past FLOOR (the timer's wake-up
// also brings a clock that a tickless idle CPU left behind up to date); at most a second.
inline void wait_for_coarse_clock_past(const struct timespec& floor) {
  if (floor.tv_sec == 0) return;
  for (int i = 0; i < 1000; ++i) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME_COARSE, &now);
    if (now.tv_sec > floor.tv_sec || (now.tv_sec == floor.tv_sec && now.tv_nsec > floor.tv_nsec)) return;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, nullptr);
  }
}

// Now, from the real-time clock, once the coarse clock has passed it: what a test does after a
// Watch's before() where paddock's child would wait before exec.
inline void settle_coarse_clock() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  wait_for_coarse_clock_past(now);
}

}  // namespace paddock::sys
