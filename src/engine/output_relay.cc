#include "engine/output_relay.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace paddock::engine {

struct OutputRelay::State {
  int fd;
  std::size_t cap;
  std::mutex mu;
  std::condition_variable cv;     // the writer waits for data or the end
  std::condition_variable idle;   // flush() waits for an empty queue
  std::deque<std::string> queue;
  std::size_t queued = 0;
  bool writing = false;  // a chunk is out of the queue, being written
  bool stop = false;
  bool gone = false;

  void run() {
    // A write to a pipe whose reader left raises SIGPIPE in the writing thread: blocked here, so
    // that write() returns EPIPE instead of killing paddock.
    sigset_t pipe_sig;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (stop) break;
      std::string chunk = std::move(queue.front());
      queue.pop_front();
      writing = true;
      lock.unlock();
      bool ok = true;
      for (std::size_t off = 0; off < chunk.size();) {
        ssize_t w = ::write(fd, chunk.data() + off, chunk.size() - off);
        if (w > 0) {
          off += static_cast<std::size_t>(w);
        } else if (w < 0 && errno == EINTR) {
          continue;
        } else {
          ok = false;
          break;
        }
      }
      lock.lock();
      writing = false;
      queued -= chunk.size();
      if (!ok) {
        gone = true;
        queue.clear();
        queued = 0;
      }
      idle.notify_all();
      if (gone) break;
    }
    idle.notify_all();
  }
};

OutputRelay::OutputRelay(int fd, std::size_t cap) : state_(std::make_shared<State>()) {
  state_->fd = fd;
  state_->cap = cap;
  // The thread keeps the state alive: abandon() may leave it blocked in write() past our end.
  std::thread([s = state_] { s->run(); }).detach();
}

OutputRelay::~OutputRelay() { abandon(); }

void OutputRelay::push(const char* data, std::size_t n) {
  if (n == 0) return;
  std::lock_guard lock(state_->mu);
  if (state_->gone || state_->stop) return;
  state_->queue.emplace_back(data, n);
  state_->queued += n;
  state_->cv.notify_one();
}

bool OutputRelay::has_room() const {
  std::lock_guard lock(state_->mu);
  return state_->stop || state_->gone || state_->queued < state_->cap;  // abandoned: read on, drop
}

bool OutputRelay::reader_gone() const {
  std::lock_guard lock(state_->mu);
  return state_->gone;
}

void OutputRelay::flush() {
  std::unique_lock lock(state_->mu);
  state_->idle.wait(lock, [&] { return state_->gone || state_->stop || (state_->queue.empty() && !state_->writing); });
}

void OutputRelay::abandon() {
  std::lock_guard lock(state_->mu);
  state_->stop = true;
  state_->queue.clear();
  state_->queued = 0;
  state_->cv.notify_all();
  state_->idle.notify_all();
}

}  // namespace paddock::engine
