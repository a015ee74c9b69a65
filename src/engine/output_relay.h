// Relaying the command's output to paddock's own stdout/stderr without ever blocking the monitor
// loop (issue 18, item 5). A reader that stalls must not stop timeouts and limits; a reader that
// goes away must end the command the way a pipe would (SIGPIPE), not kill paddock.
//
// Each destination gets a writer thread and a bounded queue. The monitor pushes what it reads and
// stops reading its source while the queue is full, so a slow reader slows the command, as a pipe
// would; when the destination is gone (EPIPE, any write error) the monitor closes its source.
#pragma once

#include <cstddef>
#include <memory>

namespace paddock::engine {

class OutputRelay {
 public:
  static constexpr std::size_t kDefaultCap = 4u << 20;
  explicit OutputRelay(int fd, std::size_t cap = kDefaultCap);
  ~OutputRelay();  // abandon()
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  void push(const char* data, std::size_t n);
  bool has_room() const;     // keep reading the source (below the cap, or abandoned: dropped)
  bool reader_gone() const;  // a write failed (EPIPE, ...): stop reading the source
  // Blocks until everything queued is written or the reader is gone.
  void flush();
  // Stops writing: what is queued is dropped; a write blocked on a stalled reader is left to
  // finish (or not) on its own, never waited for.
  void abandon();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace paddock::engine
