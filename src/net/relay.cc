#include "net/relay.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cerrno>
#include <system_error>

#include "net/io.h"

namespace paddock::net {
namespace {
// Pipes start at the default size; a direction that fills its pipe (a bulk transfer) gets a
// bigger one, once. Small connections never grow, which keeps within the per-user pipe quota
// (fs.pipe-user-pages-soft) when many are open.
constexpr std::size_t kPipeDefault = 64 * 1024;
constexpr int kPipeBulk = 1024 * 1024;
constexpr std::uint64_t kWakeTag = ~0ull;
std::uint64_t tag(std::uint64_t id, int side) { return id << 1 | static_cast<std::uint64_t>(side); }
}  // namespace

Result<void> Relay::start() {
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_) return errno_error("epoll_create1", errno, "egress relay");
  wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_) return errno_error("eventfd", errno, "egress relay");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeTag;
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &ev) != 0) {
    return errno_error("epoll_ctl", errno, "egress relay");
  }
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error& e) {
    return make_error(std::string("cannot start a thread: ") + e.what(), "egress relay");
  }
  return ok_result();
}

void Relay::add(sys::UniqueFd a, sys::UniqueFd b, Done done) {
  auto p = std::make_unique<Pair>();
  set_nonblocking(a.get());
  set_nonblocking(b.get());
  p->fd[0] = std::move(a);
  p->fd[1] = std::move(b);
  p->done = std::move(done);
  for (auto& d : p->dir) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
      if (p->done) p->done(0, 0);
      return;  // the sockets close with p
    }
    d.pipe_r.reset(fds[0]);
    d.pipe_w.reset(fds[1]);
    int sz = ::fcntl(fds[1], F_GETPIPE_SZ);
    d.cap = sz > 0 ? static_cast<std::size_t>(sz) : kPipeDefault;
  }
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      if (p->done) p->done(0, 0);
      return;
    }
    incoming_.push_back(std::move(p));
  }
  ++active_;
  std::uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof(one));
}

void Relay::stop() {
  if (stopping_.exchange(true)) return;
  if (wake_) {
    std::uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  for (auto& [id, p] : pairs_) {
    if (p->done) p->done(p->dir[0].bytes, p->dir[1].bytes);
  }
  pairs_.clear();
  std::lock_guard lock(mu_);
  for (auto& p : incoming_) {
    if (p->done) p->done(0, 0);
  }
  incoming_.clear();
  active_ = 0;
}

void Relay::take_new() {
  std::vector<std::unique_ptr<Pair>> fresh;
  {
    std::lock_guard lock(mu_);
    fresh.swap(incoming_);
  }
  for (auto& p : fresh) {
    p->id = next_id_++;
    Pair& ref = *p;
    pairs_.emplace(ref.id, std::move(p));
    for (int s = 0; s < 2; ++s) {
      epoll_event ev{};
      ev.events = 0;
      ev.data.u64 = tag(ref.id, s);
      ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, ref.fd[s].get(), &ev);
    }
    // Data may already be waiting (a client that sent early): try both directions now.
    if (!pump(ref, 0) || !pump(ref, 1)) {
      close_pair(ref.id);
      continue;
    }
    rearm(ref);
  }
}

bool Relay::pump(Pair& p, int d) {
  Direction& dir = p.dir[d];
  int src = p.fd[d].get();
  int dst = p.fd[1 - d].get();
  for (int round = 0; round < 16; ++round) {
    bool progress = false;
    if (dir.pending == dir.cap && !dir.grown) {
      dir.grown = true;
      int sz = ::fcntl(dir.pipe_w.get(), F_SETPIPE_SZ, kPipeBulk);
      if (sz > 0 && static_cast<std::size_t>(sz) > dir.cap) dir.cap = static_cast<std::size_t>(sz);
    }
    if (!dir.src_eof && dir.pending < dir.cap) {
      ssize_t n = ::splice(src, nullptr, dir.pipe_w.get(), nullptr, dir.cap - dir.pending,
                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) {
        dir.pending += static_cast<std::size_t>(n);
        dir.bytes += static_cast<std::uint64_t>(n);
        progress = true;
      } else if (n == 0) {
        dir.src_eof = true;
        progress = true;
      } else if (errno != EAGAIN && errno != EINTR) {
        return false;
      }
    }
    if (dir.pending > 0) {
      ssize_t n = ::splice(dir.pipe_r.get(), nullptr, dst, nullptr, dir.pending,
                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n > 0) {
        dir.pending -= static_cast<std::size_t>(n);
        progress = true;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        return false;
      }
    }
    if (dir.src_eof && dir.pending == 0 && !dir.shut) {
      ::shutdown(dst, SHUT_WR);
      dir.shut = true;
    }
    if (!progress) break;
  }
  return true;
}

void Relay::rearm(Pair& p) {
  for (int s = 0; s < 2; ++s) {
    if (p.hup[s]) continue;
    std::uint32_t want = 0;
    const Direction& out = p.dir[s];     // s reads
    const Direction& in = p.dir[1 - s];  // s is written to
    if (!out.src_eof && out.pending < out.cap) want |= EPOLLIN;
    if (in.pending > 0) want |= EPOLLOUT;
    if (want != p.armed[s]) {
      epoll_event ev{};
      ev.events = want;
      ev.data.u64 = tag(p.id, s);
      ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, p.fd[s].get(), &ev);
      p.armed[s] = want;
    }
  }
}

void Relay::close_pair(std::uint64_t id) {
  auto it = pairs_.find(id);
  if (it == pairs_.end()) return;
  Pair& p = *it->second;
  for (int s = 0; s < 2; ++s) {
    if (!p.hup[s]) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd[s].get(), nullptr);
  }
  if (p.done) p.done(p.dir[0].bytes, p.dir[1].bytes);
  pairs_.erase(it);
  --active_;
}

void Relay::loop() {
  epoll_event events[64];
  while (!stopping_) {
    int n = ::epoll_wait(epoll_.get(), events, 64, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      std::uint64_t t = events[i].data.u64;
      if (t == kWakeTag) {
        std::uint64_t v;
        (void)!::read(wake_.get(), &v, sizeof(v));
        take_new();
        continue;
      }
      auto it = pairs_.find(t >> 1);
      if (it == pairs_.end()) continue;  // closed earlier in this batch
      Pair& p = *it->second;
      int s = static_cast<int>(t & 1);
      bool ok = true;
      std::uint32_t ev = events[i].events;
      // Readable (or hung up / error): pull from s. Writable: push into s from the other side.
      if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) ok = pump(p, s);
      if (ok && (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR))) ok = pump(p, 1 - s);
      if ((ev & EPOLLERR) && !(ev & EPOLLIN)) ok = false;
      // A hung-up socket stays readable-for-HUP forever in level-triggered mode; once its
      // direction has seen EOF, stop watching it (writes into it fail and close the pair).
      if (ok && (ev & EPOLLHUP) && p.dir[s].src_eof && !p.hup[s]) {
        ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd[s].get(), nullptr);
        p.hup[s] = true;
        if (p.dir[1 - s].pending > 0 || !p.dir[1 - s].shut) ok = pump(p, 1 - s) && p.dir[1 - s].shut;
      }
      bool finished = p.dir[0].shut && p.dir[1].shut;
      if (!ok || finished) {
        close_pair(p.id);
      } else {
        rearm(p);
      }
    }
  }
}

}  // namespace paddock::net
