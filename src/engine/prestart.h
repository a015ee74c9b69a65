// Namespaces made ahead of time. A small helper process, forked as early as the caller likes
// (the CLI: first thing in main), makes a user namespace mapped to the caller's uid/gid and a
// network namespace with `lo` up, while the caller parses flags and builds its policy. start()
// then joins them from the sandbox's first process instead of creating them in clone3, which
// takes the network namespace's cost (~0.5-1 ms of kernel work) off the critical path.
#pragma once

#include <sys/types.h>

#include <memory>

#include "sys/unique_fd.h"

namespace paddock {

class Prestart {
 public:
  ~Prestart();
  Prestart(const Prestart&) = delete;
  Prestart& operator=(const Prestart&) = delete;

  // Forks the helper; nullptr if even that fails (the run then makes its own namespaces).
  static std::shared_ptr<Prestart> begin();

  // Waits for the helper, takes its namespaces (as descriptors) and lets it go. False when it
  // could not make them (user namespaces unavailable or restricted): the run proceeds as if
  // there had been no prestart and meets the same failure itself. Single use.
  bool take(sys::UniqueFd& userns, sys::UniqueFd& netns);
  // Not needed after all (host network, no namespaces): stop the helper now.
  void discard() {
    taken_ = true;
    stop();
  }

 private:
  Prestart() = default;
  void stop();

  pid_t pid_ = -1;
  sys::UniqueFd pidfd_;
  sys::UniqueFd status_;  // the helper writes one int: 0 ready, or the errno of what failed
  bool taken_ = false;
};

}  // namespace paddock
