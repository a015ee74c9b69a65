// The checkpoint channel: what a sandbox may send, and that it can only ask (undo/checkpoint.h).
#include "undo/checkpoint.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace paddock::undo {
namespace {

TEST(CheckpointLabel, TextWithoutControlsUpToTheLimit) {
  EXPECT_EQ(checkpoint_label_problem(""), "");
  EXPECT_EQ(checkpoint_label_problem("before refactor"), "");
  EXPECT_EQ(checkpoint_label_problem("tour n\xC2\xB0 3 \xE2\x80\x94 caf\xC3\xA9 \xF0\x9F\x90\x8E"), "");
  EXPECT_EQ(checkpoint_label_problem(std::string(kMaxCheckpointLabel, 'x')), "");
  EXPECT_NE(checkpoint_label_problem(std::string(kMaxCheckpointLabel + 1, 'x')), "");
  // Terminal escapes and line breaks would reach `paddock undo list` on the user's terminal.
  for (const std::string& bad : std::vector<std::string>{"a\nb", "a\rb", "\x1b[2J", "tab\there", std::string("nul\0x", 5), "del\x7f",
                          "c1 \xC2\x9B" "31m"})
    EXPECT_NE(checkpoint_label_problem(bad), "") << bad;
  // Not UTF-8: overlong, surrogate, truncated, stray continuation, beyond U+10FFFF.
  for (const std::string& bad : std::vector<std::string>{"\xC0\xAF", "\xED\xA0\x80", "\xE2\x80", "\x80", "\xF4\x90\x80\x80", "\xFF"})
    EXPECT_NE(checkpoint_label_problem(bad), "") << bad;
}

TEST(CheckpointRequest, RoundTripsAndRefusesAnythingElse) {
  auto ok = parse_checkpoint_request(checkpoint_request("turn 3"));
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(*ok, "turn 3");
  EXPECT_FALSE(parse_checkpoint_request(""));
  EXPECT_FALSE(parse_checkpoint_request("paddock-checkpoint 2\nx"));
  EXPECT_FALSE(parse_checkpoint_request("restore 20261126-000000-abcd:0"));
  EXPECT_FALSE(parse_checkpoint_request(checkpoint_request("a\x1b]0;x\x07")));
}

// A server whose handler records the labels it was asked for.
struct Recorder {
  std::mutex mu;
  std::vector<std::string> labels;
  std::unique_ptr<CheckpointServer> server;
  explicit Recorder(int max = kMaxCheckpointsPerRun) {
    auto s = CheckpointServer::start(
        [this](const std::string& label) {
          std::lock_guard<std::mutex> l(mu);
          labels.push_back(label);
          return "ok :" + std::to_string(labels.size()) + " " + label;
        },
        max);
    EXPECT_TRUE(s) << s.error().describe();
    server = std::move(*s);
  }
  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> l(mu);
    return labels;
  }
};

// Sends DATA with the descriptors FDS on the channel, as a sandbox could.
void send_raw(int channel, const std::string& data, const std::vector<int>& fds) {
  iovec iov{const_cast<char*>(data.data()), data.size()};
  std::vector<char> control(CMSG_SPACE(sizeof(int) * std::max<std::size_t>(fds.size(), 1)));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ASSERT_GE(sendmsg(channel, &msg, MSG_NOSIGNAL), 0) << std::strerror(errno);
}

TEST(CheckpointServer, AnswersEachAskerOnItsOwnSocket) {
  Recorder r;
  auto a = ask_for_checkpoint(r.server->sandbox_end(), "first");
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(*a, ":1 first");
  // Eight askers at once: each reads the answer to its own label.
  std::atomic<int> right{0};
  std::vector<std::thread> askers;
  for (int i = 0; i < 8; ++i)
    askers.emplace_back([&, i] {
      auto got = ask_for_checkpoint(r.server->sandbox_end(), "asker " + std::to_string(i));
      if (got && got->size() > 2 && got->substr(got->find(' ') + 1) == "asker " + std::to_string(i)) ++right;
    });
  for (auto& t : askers) t.join();
  EXPECT_EQ(right.load(), 8);
  EXPECT_EQ(r.server->answered(), 9);
}

TEST(CheckpointServer, ABadLabelIsRefusedBeforeAndAtTheServer) {
  Recorder r;
  EXPECT_FALSE(ask_for_checkpoint(r.server->sandbox_end(), "x\ny"));  // the client checks
  // A client that does not check: the server refuses it and says why.
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
  send_raw(r.server->sandbox_end(), checkpoint_request("a\x1b[2Jb"), {sv[1]});
  close(sv[1]);
  char buf[512];
  ssize_t n = recv(sv[0], buf, sizeof(buf), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, 6), "error ");
  // Longer than any request: refused as too long, not cut to fit.
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv + 0), 0);
  send_raw(r.server->sandbox_end(), checkpoint_request(std::string(100000, 'x')), {sv[1]});
  close(sv[1]);
  n = recv(sv[0], buf, sizeof(buf), 0);
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(buf, n).find("longer"), std::string::npos) << std::string(buf, n);
  close(sv[0]);
  EXPECT_TRUE(r.seen().empty());
}

TEST(CheckpointServer, WritesToNothingButAnUnnamedSocketTheSandboxSent) {
  Recorder r;
  const int ch = r.server->sandbox_end();
  // A file the sandbox can name and the host trusts: paddock must not write its answer into it.
  char path[] = "/tmp/paddock-ckpt-test-XXXXXX";
  int file = mkstemp(path);
  ASSERT_GE(file, 0);
  send_raw(ch, checkpoint_request("file"), {file});
  // A pipe, two sockets at once, no descriptor at all, not a request.
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  send_raw(ch, checkpoint_request("pipe"), {p[1]});
  int s1[2], s2[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s1), 0);
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s2), 0);
  send_raw(ch, checkpoint_request("two"), {s1[1], s2[1]});
  send_raw(ch, checkpoint_request("none"), {});
  // A socket connected to a listener with a name (some service's socket): not answered on.
  char dir[] = "/tmp/paddock-ckpt-sock-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string sock_path = std::string(dir) + "/service";
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock_path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  int client = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  send_raw(ch, checkpoint_request("service"), {client});
  // Then a proper request is still answered: the server did not stop or block.
  auto ok = ask_for_checkpoint(ch, "proper");
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(r.seen(), std::vector<std::string>{"proper"});
  struct stat st;
  ASSERT_EQ(fstat(file, &st), 0);
  EXPECT_EQ(st.st_size, 0) << "paddock wrote into a file the sandbox handed it";
  int served = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
  ASSERT_GE(served, 0);
  char buf[64];
  EXPECT_LT(recv(served, buf, sizeof(buf), MSG_DONTWAIT), 0) << "paddock wrote to a named service's socket";
  for (int fd : {file, p[0], p[1], s1[0], s1[1], s2[0], s2[1], listener, client, served}) close(fd);
  unlink(path);
  unlink(sock_path.c_str());
  rmdir(dir);
}

TEST(CheckpointServer, StopsTakingSnapshotsAtTheLimit) {
  Recorder r(3);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ask_for_checkpoint(r.server->sandbox_end(), "n"));
  auto over = ask_for_checkpoint(r.server->sandbox_end(), "n");
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("the most one run may take"), std::string::npos) << over.error().message;
  EXPECT_EQ(r.seen().size(), 3u);
}

TEST(CheckpointServer, AnAskerSeesTheChannelCloseWhenTheRunEnds) {
  Recorder r;
  const int ch = dup(r.server->sandbox_end());
  r.server->stop();
  r.server->close_sandbox_end();
  // The parent's end is still open (held until the server is destroyed): a request queues and
  // nobody answers; once destroyed, sending fails.
  r.server.reset();
  auto late = ask_for_checkpoint(ch, "late");
  EXPECT_FALSE(late);
  close(ch);
  // Not a channel at all.
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  auto wrong = ask_for_checkpoint(p[0], "x");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("not paddock's checkpoint channel"), std::string::npos);
  close(p[0]);
  close(p[1]);
}

TEST(CheckpointServer, TheSocketDoorAnswersEachConnectionOnce) {
  Recorder r;  // the inherited door only
  EXPECT_EQ(r.server->socket_path(), "");
  std::mutex mu;
  std::vector<std::string> labels;
  auto s = CheckpointServer::start(
      [&](const std::string& label) {
        std::lock_guard<std::mutex> l(mu);
        labels.push_back(label);
        return "ok " + label;
      },
      kMaxCheckpointsPerRun, true);
  ASSERT_TRUE(s) << s.error().describe();
  const std::string path = (*s)->socket_path();
  ASSERT_FALSE(path.empty());
  struct stat st;
  ASSERT_EQ(lstat(path.substr(0, path.rfind('/')).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u) << "the socket's directory is the user's alone";
  auto a = ask_for_checkpoint_at(path, "by path");
  ASSERT_TRUE(a) << a.error().describe();
  EXPECT_EQ(*a, "by path");
  // A connection that never sends is dropped after a wait; the next asker is answered.
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  int silent = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  ASSERT_EQ(connect(silent, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  auto b = ask_for_checkpoint_at(path, "after a silent one");
  ASSERT_TRUE(b) << b.error().describe();
  char buf[16];
  EXPECT_EQ(recv(silent, buf, sizeof(buf), 0), 0) << "the silent connection was closed unanswered";
  close(silent);
  // Too long: refused, not cut.
  int big = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  ASSERT_EQ(connect(big, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string huge = checkpoint_request(std::string(5000, 'x'));
  ASSERT_GT(send(big, huge.data(), huge.size(), 0), 0);
  char reply[512];
  const ssize_t n = recv(big, reply, sizeof(reply), 0);
  ASSERT_GT(n, 0);
  EXPECT_NE(std::string(reply, n).find("longer"), std::string::npos);
  close(big);
  EXPECT_EQ(labels, (std::vector<std::string>{"by path", "after a silent one"}));
  s->reset();
  EXPECT_NE(lstat(path.c_str(), &st), 0) << "the socket is removed with the server";
}

}  // namespace
}  // namespace paddock::undo
