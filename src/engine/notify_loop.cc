#include "engine/notify_loop.h"

#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace paddock::engine {

void notify_loop(int listener, int stop, const seccomp_notif_sizes& sizes,
                 const std::function<std::optional<int>(const seccomp_notif&)>& answer,
                 const std::function<void(const seccomp_notif&, bool answered)>& after) {
  std::vector<char> req_buf(std::max<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  std::vector<char> resp_buf(std::max<std::size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
  for (;;) {
    pollfd p[2] = {{listener, POLLIN, 0}, {stop, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (p[1].revents != 0) return;
    if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) return;  // no sandboxed process is left
    if (!(p[0].revents & POLLIN)) continue;
    std::memset(req_buf.data(), 0, req_buf.size());
    auto* req = reinterpret_cast<seccomp_notif*>(req_buf.data());
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) continue;  // the caller is gone
    std::optional<int> err = answer(*req);
    if (!err) continue;
    std::memset(resp_buf.data(), 0, resp_buf.size());
    auto* resp = reinterpret_cast<seccomp_notif_resp*>(resp_buf.data());
    resp->id = req->id;
    resp->error = *err == 0 ? 0 : -*err;
    resp->val = 0;
    const bool answered = ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0;
    if (after) after(*req, answered);
  }
}

}  // namespace paddock::engine
