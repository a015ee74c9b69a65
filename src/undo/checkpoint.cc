#include "undo/checkpoint.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace paddock::undo {
namespace {

// Decodes one UTF-8 sequence at S[i]; the code point, or -1 when invalid (overlong, surrogate,
// out of range, truncated).
long next_code_point(std::string_view s, std::size_t& i) {
  const auto b = static_cast<unsigned char>(s[i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || i + len > s.size()) return -1;
  long cp = len == 1 ? b : b & (0x7f >> len);
  for (int k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c >> 6) != 0x2) return -1;
    cp = (cp << 6) | (c & 0x3f);
  }
  static constexpr long kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  i += len;
  return cp;
}

// A descriptor the sandbox sent for the reply: an AF_UNIX socket whose peer has no name (one end
// of a socketpair, or a socket connected from an unnamed one). Anything else (a file, a pipe, a
// socket connected to some service's path) is dropped unanswered: paddock writes nowhere the
// sandbox points it at but back to the sandbox.
bool reply_socket_ok(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  int domain = 0, type = 0;
  socklen_t len = sizeof(domain);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_UNIX) return false;
  len = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || (type != SOCK_SEQPACKET && type != SOCK_STREAM))
    return false;
  sockaddr_un peer{};
  socklen_t plen = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &plen) != 0) return false;
  return plen == sizeof(sa_family_t);
}

// The reply line on FD (blocking: paddock answers, or its end closes when the run ends).
Result<std::string> read_reply(int fd) {
  char buf[1024];
  const ssize_t n = sys::retry_eintr([&] { return recv(fd, buf, sizeof(buf), 0); });
  if (n < 0) return errno_error("read paddock's answer");
  if (n == 0) return make_error("paddock did not answer: the run is ending");
  std::string reply(buf, static_cast<std::size_t>(n));
  if (reply.rfind("ok ", 0) == 0) return reply.substr(3);
  if (reply.rfind("error ", 0) == 0) return make_error(reply.substr(6));
  return make_error("an answer paddock does not give: " + reply);
}

// Sends the request on a connected socket and reads the reply.
Result<std::string> exchange(int fd, std::string_view label) {
  const std::string req = checkpoint_request(label);
  if (sys::retry_eintr([&] { return send(fd, req.data(), req.size(), MSG_NOSIGNAL); }) < 0)
    return errno_error("send the checkpoint request");
  return read_reply(fd);
}

}  // namespace

std::string checkpoint_label_problem(std::string_view label) {
  if (label.size() > kMaxCheckpointLabel)
    return "a label is at most " + std::to_string(kMaxCheckpointLabel) + " bytes (this one has " +
           std::to_string(label.size()) + ")";
  for (std::size_t i = 0; i < label.size();) {
    const std::size_t at = i;
    const long cp = next_code_point(label, i);
    if (cp < 0) return "a label is UTF-8 text; byte " + std::to_string(at) + " is not";
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
      return "a label has no control characters (byte " + std::to_string(at) + ")";
  }
  return "";
}

std::string checkpoint_request(std::string_view label) {
  return std::string(kCheckpointMagic) + std::string(label);
}

Result<std::string> parse_checkpoint_request(std::string_view datagram) {
  if (datagram.substr(0, kCheckpointMagic.size()) != kCheckpointMagic)
    return make_error("not a checkpoint request (it starts with \"paddock-checkpoint 1\\n\")");
  std::string label(datagram.substr(kCheckpointMagic.size()));
  if (std::string why = checkpoint_label_problem(label); !why.empty()) return make_error(why);
  return label;
}

Result<std::string> ask_for_checkpoint(int fd, std::string_view label) {
  if (std::string why = checkpoint_label_problem(label); !why.empty()) return make_error(why);
  int type = 0;
  socklen_t len = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET)
    return make_error("descriptor " + std::to_string(fd) +
                      " is not paddock's checkpoint channel (a program between paddock and this one may have "
                      "closed it, or this is not a `paddock run --undo`)");
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return errno_error("socketpair");
  sys::UniqueFd mine(sv[0]), theirs(sv[1]);
  const std::string req = checkpoint_request(label);
  iovec iov{const_cast<char*>(req.data()), req.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  const int theirs_fd = theirs.get();
  std::memcpy(CMSG_DATA(c), &theirs_fd, sizeof(int));
  if (sys::retry_eintr([&] { return sendmsg(fd, &msg, MSG_NOSIGNAL); }) < 0)
    return errno_error("send the checkpoint request", errno, std::string(kCheckpointFdEnv) + "=" + std::to_string(fd));
  theirs.reset();
  return read_reply(mine.get());
}

Result<std::string> ask_for_checkpoint_at(const std::string& path, std::string_view label) {
  if (std::string why = checkpoint_label_problem(label); !why.empty()) return make_error(why);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return make_error("socket path too long", path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  sys::UniqueFd s(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!s) return errno_error("socket", errno, path);
  if (sys::retry_eintr([&] { return connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)); }) != 0)
    return errno_error("connect", errno, path);
  return exchange(s.get(), label);
}

struct CheckpointServer::Impl {
  Handler handler;
  int max_requests = 0;
  sys::UniqueFd parent_end, sandbox_end, stop_fd, listener;
  std::string socket_dir, socket_path;

  ~Impl() {
    if (!socket_path.empty()) unlink(socket_path.c_str());
    if (!socket_dir.empty()) rmdir(socket_dir.c_str());
  }
  std::thread thread;
  std::atomic<int> answered{0};
  int asked = 0;

  void reply(int fd, const std::string& text) {
    if (fd >= 0) (void)send(fd, text.data(), text.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  }

  void serve_one() {
    char buf[kCheckpointMagic.size() + kMaxCheckpointLabel + 1];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    iovec iov{buf, sizeof(buf)};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t n = recvmsg(parent_end.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) return;
    // Every descriptor that arrived is ours to close; only a lone socket is answered on.
    std::vector<sys::UniqueFd> fds;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t k = 0; k < count; ++k) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
        fds.emplace_back(fd);
      }
    }
    if ((msg.msg_flags & MSG_CTRUNC) != 0 || fds.size() != 1 || !reply_socket_ok(fds[0].get())) return;
    answer(fds[0].get(), std::string_view(buf, static_cast<std::size_t>(n)), (msg.msg_flags & MSG_TRUNC) != 0);
  }

  // One connection on the listening socket: one request, waited for at most
  // kCheckpointRequestWaitMs; descriptors sent along are discarded by recv().
  void serve_connection() {
    sys::UniqueFd conn(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!conn) return;
    pollfd p{conn.get(), POLLIN, 0};
    if (sys::retry_eintr([&] { return poll(&p, 1, kCheckpointRequestWaitMs); }) <= 0) return;
    char buf[kCheckpointMagic.size() + kMaxCheckpointLabel + 1];
    msghdr msg{};
    iovec iov{buf, sizeof(buf)};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    const ssize_t n = recvmsg(conn.get(), &msg, MSG_DONTWAIT);
    if (n <= 0) return;
    answer(conn.get(), std::string_view(buf, static_cast<std::size_t>(n)), (msg.msg_flags & MSG_TRUNC) != 0);
  }

  void answer(int out, std::string_view datagram, bool truncated) {
    if (truncated) {
      reply(out, "error the request is longer than a label allows (" + std::to_string(kMaxCheckpointLabel) + " bytes)");
      return;
    }
    auto label = parse_checkpoint_request(datagram);
    if (!label) {
      reply(out, "error " + label.error().message);
      return;
    }
    if (++asked > max_requests) {
      reply(out, "error this run has had " + std::to_string(max_requests) +
                     " checkpoints, the most one run may take; the last snapshot is still taken when it ends");
      return;
    }
    std::string text = handler(*label);
    if (text.rfind("ok ", 0) == 0) answered.fetch_add(1);
    reply(out, text);
  }

  void loop() {
    bool end_open = true;
    for (;;) {
      pollfd p[3] = {{end_open ? parent_end.get() : -1, POLLIN, 0}, {stop_fd.get(), POLLIN, 0}, {listener.get(), POLLIN, 0}};
      if (poll(p, listener ? 3 : 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if ((p[1].revents & POLLIN) != 0) return;
      if (listener && (p[2].revents & POLLIN) != 0) serve_connection();
      if ((p[0].revents & POLLIN) != 0) {
        serve_one();
        continue;
      }
      // No sandbox end is open anymore: the listener may still be used until stop().
      if ((p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
        if (!listener) return;
        end_open = false;
      }
    }
  }
};

CheckpointServer::CheckpointServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<CheckpointServer>> CheckpointServer::start(Handler handler, int max_requests,
                                                                   bool with_socket) {
  auto impl = std::make_unique<Impl>();
  impl->handler = std::move(handler);
  impl->max_requests = max_requests;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return errno_error("socketpair");
  impl->parent_end.reset(sv[0]);
  impl->sandbox_end.reset(sv[1]);
  impl->stop_fd.reset(eventfd(0, EFD_CLOEXEC));
  if (!impl->stop_fd) return errno_error("eventfd");
  if (with_socket) {
    char dir[] = "/tmp/paddock-checkpoint-XXXXXX";
    if (mkdtemp(dir) == nullptr) return errno_error("mkdtemp", errno, "/tmp");
    impl->socket_dir = dir;
    impl->socket_path = impl->socket_dir + "/" + kCheckpointSocketName;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, impl->socket_path.c_str(), impl->socket_path.size() + 1);
    impl->listener.reset(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!impl->listener) return errno_error("socket");
    if (bind(impl->listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
      return errno_error("bind", errno, impl->socket_path);
    if (listen(impl->listener.get(), 16) != 0) return errno_error("listen", errno, impl->socket_path);
  }
  // The thread takes no signal: the run's monitor waits for the ones it forwards to the sandbox.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->loop(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return std::unique_ptr<CheckpointServer>(new CheckpointServer(std::move(impl)));
}

CheckpointServer::~CheckpointServer() { stop(); }

int CheckpointServer::sandbox_end() const { return impl_->sandbox_end.get(); }
const std::string& CheckpointServer::socket_path() const { return impl_->socket_path; }
void CheckpointServer::close_sandbox_end() { impl_->sandbox_end.reset(); }
int CheckpointServer::answered() const { return impl_->answered.load(); }

void CheckpointServer::stop() {
  if (!impl_->thread.joinable()) return;
  const std::uint64_t one = 1;
  (void)!write(impl_->stop_fd.get(), &one, sizeof(one));
  impl_->thread.join();
}

}  // namespace paddock::undo
