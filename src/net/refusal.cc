#include "net/refusal.h"

#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace paddock::net {
namespace {

constexpr std::uint8_t kTcp = 6;
constexpr std::uint8_t kRstAck = 0x14;  // RST (0x04) and ACK (0x10)
constexpr int kLoopbackIfindex = 1;     // LOOPBACK_IFINDEX: `lo` in every network namespace

// Runs on each packet with the data at the IP header (a SOCK_DGRAM packet socket). Each packet on
// `lo` is seen twice, leaving and arriving; only the arrival is kept.
constexpr sock_filter kProgram[] = {
    /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, static_cast<__u32>(SKF_AD_OFF + SKF_AD_PKTTYPE)),
    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 20, 0),
    /* 2 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
    /* 3 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
    /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 8, 0),
    /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x60, 0, 16),
    // IPv6, TCP right after the fixed header.
    /* 6 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6),
    /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kTcp, 0, 14),
    /* 8 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 40 + 13),
    /* 9 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, kRstAck),
    /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kRstAck, 0, 11),
    /* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 40 + 4),
    /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 8, 9),
    // IPv4.
    /* 13 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
    /* 14 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kTcp, 0, 7),
    /* 15 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
    /* 16 */ BPF_STMT(BPF_LD | BPF_B | BPF_IND, 13),
    /* 17 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, kRstAck),
    /* 18 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kRstAck, 0, 3),
    /* 19 */ BPF_STMT(BPF_LD | BPF_W | BPF_IND, 4),
    /* 20 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
    /* 21 */ BPF_STMT(BPF_RET | BPF_K, 128),  // keep: the headers are enough
    /* 22 */ BPF_STMT(BPF_RET | BPF_K, 0),    // drop
};

std::uint16_t be16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
std::uint32_t be32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
         static_cast<std::uint32_t>(p[2]) << 8 | p[3];
}

}  // namespace

int open_refusal_watch() {
  // Protocol 0: nothing is queued before the filter is attached and the socket bound to `lo`.
  int fd = ::socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sock_fprog prog{};
  prog.len = sizeof(kProgram) / sizeof(kProgram[0]);
  prog.filter = const_cast<sock_filter*>(kProgram);
  sockaddr_ll sa{};
  sa.sll_family = AF_PACKET;
  sa.sll_protocol = htons(ETH_P_ALL);
  sa.sll_ifindex = kLoopbackIfindex;
  if (::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) != 0 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

std::optional<RefusedConnection> parse_refusal(const std::uint8_t* p, std::size_t n) {
  if (n < 1) return std::nullopt;
  RefusedConnection r;
  const std::uint8_t* tcp = nullptr;
  if ((p[0] >> 4) == 4) {
    const std::size_t ihl = static_cast<std::size_t>(p[0] & 0x0f) * 4;
    if (ihl < 20 || n < ihl + 20 || p[9] != kTcp) return std::nullopt;
    r.addr.family = AF_INET;
    std::memcpy(r.addr.bytes.data(), p + 12, 4);  // the reset comes from where the SYN went
    tcp = p + ihl;
  } else if ((p[0] >> 4) == 6) {
    if (n < 40 + 20 || p[6] != kTcp) return std::nullopt;
    r.addr.family = AF_INET6;
    std::memcpy(r.addr.bytes.data(), p + 8, 16);
    tcp = p + 40;
  } else {
    return std::nullopt;
  }
  if ((tcp[13] & kRstAck) != kRstAck || be32(tcp + 4) != 0) return std::nullopt;
  r.port = be16(tcp);
  if (r.port == 0) return std::nullopt;
  return r;
}

}  // namespace paddock::net
