// Issue 4 end to end: the real `paddock run` with a filtered network. Test servers run on
// 127.0.0.1 in the test's own (host) namespace; the test-only --resolve map points allowed.test
// and denied.test at them. The client inside the sandbox is python3 (a script in the project).
// Only loopback is contacted; 192.0.2.1 is tried from inside the sandbox, where it has no route.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "helpers/test_util.h"
#include "net/testing_servers.h"

#include <thread>

namespace {

using paddock::net::testing::Server;

// The in-sandbox client: each argument is one operation "op:arg:arg"; one result line each.
constexpr const char* kClient = R"PY(
import errno, os, socket, sys, urllib.request

def head(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(1)
        if not d: break
        buf += d
    return buf.decode("latin-1").split("\r\n")[0]

def op(spec):
    kind, *a = spec.split(":")
    try:
        if kind == "get":  # urllib honours HTTP_PROXY
            r = urllib.request.urlopen("http://%s:%s/%s" % (a[0], a[1], a[2]), timeout=10)
            return "status %d %s" % (r.status, r.read().decode().strip())
        if kind == "connect":
            s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
            s.sendall(("CONNECT %s:%s HTTP/1.1\r\n\r\n" % (a[0], a[1])).encode())
            h = head(s)
            if " 200 " not in h: return "refused " + h + " " + s.recv(500).decode().strip()
            s.sendall(b"ping"); return "echo " + s.recv(4).decode()
        if kind == "connect6":  # CONNECT to an IPv6 literal, [::1]:port
            s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
            s.sendall(("CONNECT [::1]:%s HTTP/1.1\r\n\r\n" % a[0]).encode())
            return "connect6 " + head(s)
        if kind == "socks":
            s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
            s.sendall(b"\x05\x01\x00"); s.recv(2)
            p = int(a[1]); n = a[0].encode()
            s.sendall(b"\x05\x01\x00\x03" + bytes([len(n)]) + n + bytes([p >> 8, p & 255]))
            rep = s.recv(10)
            if rep[1] != 0: return "socks-reply %d" % rep[1]
            s.sendall(b"ping"); return "echo " + s.recv(4).decode()
        if kind == "plain":  # ignores proxy variables: resolve, then connect to port 80
            addr = socket.gethostbyname(a[0])
            s = socket.create_connection((addr, 80), timeout=10)
            s.sendall(("GET /t HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % a[0]).encode())
            return "plain " + head(s)
        if kind == "direct":  # to an address itself, no proxy (NO_PROXY has 127.0.0.1; Node's fetch)
            s = socket.create_connection((a[0], int(a[1])), timeout=10)
            s.sendall(("GET /d HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n" % (a[0], a[1])).encode())
            return "direct " + (head(s) or "reset")
        if kind == "direct6":  # to [::1]:port itself, as curl localhost:port tries first
            s = socket.create_connection(("::1", int(a[0])), timeout=10)
            s.sendall(b"GET /d6 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return "direct6 " + (head(s) or "reset")
        if kind == "banner":  # a server that speaks first (ssh-like), reached by name and port
            s = socket.create_connection((socket.gethostbyname(a[0]), int(a[1])), timeout=10)
            line = s.makefile("rb").readline().decode().strip()
            return "banner " + line
        if kind in ("tls", "tls-proxy"):  # real TLS: transparent (DNS + 443) or through CONNECT
            import ssl
            ctx = ssl.create_default_context(cafile=a[1])
            if kind == "tls":
                raw = socket.create_connection((socket.gethostbyname(a[0]), 443), timeout=10)
            else:
                raw = socket.create_connection(("127.0.0.1", 3128), timeout=10)
                raw.sendall(("CONNECT %s:443 HTTP/1.1\r\n\r\n" % a[0]).encode())
                h = head(raw)
                if " 200 " not in h: return "refused " + h
            s = ctx.wrap_socket(raw, server_hostname=a[0])
            s.sendall(("GET / HTTP/1.0\r\nHost: %s\r\n\r\n" % a[0]).encode())
            return "tls " + s.makefile("rb").readline().decode().strip() + " " + s.version()
        if kind == "badhost":  # a Host header of any bytes (hex) on the transparent listener
            s = socket.create_connection((socket.gethostbyname("allowed.test"), 80), timeout=10)
            s.sendall(b"GET / HTTP/1.1\r\nHost: " + bytes.fromhex(a[0]) + b"\r\n\r\n")
            return "badhost " + head(s)
        if kind == "badsocks":  # a SOCKS5 domain of any bytes (hex)
            s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
            s.sendall(b"\x05\x01\x00"); s.recv(2)
            n = bytes.fromhex(a[0])
            s.sendall(b"\x05\x01\x00\x03" + bytes([len(n)]) + n + bytes([0, 80]))
            return "socks-reply %d" % s.recv(10)[1]
        if kind == "dnsflood":  # `rep` queries for one name, then `n` distinct names (UDP)
            import struct
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(5)
            names = ["rep.denied.test"] * int(a[1]) + ["n%d.denied.test" % i for i in range(int(a[0]))]
            for i, name in enumerate(names):
                q = struct.pack(">HHHHHH", i & 0xffff, 0x0100, 1, 0, 0, 0)
                q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0\0\1\0\1"
                s.sendto(q, ("127.0.0.1", 53))
                s.recv(512)
            return "flooded %d" % len(names)
        if kind == "wait":  # until the test creates the file a[0] (it has read the live log)
            import time
            for _ in range(400):
                if os.path.exists(a[0]): return "waited"
                time.sleep(0.05)
            return "timeout"
        if kind == "raw":  # a raw socket to an address
            socket.create_connection((a[0], int(a[1])), timeout=5)
            return "raw connected"
    except urllib.error.HTTPError as e:
        return "http-error %d %s" % (e.code, e.read().decode().strip())
    except socket.gaierror as e:
        return "no-name"
    except OSError as e:
        return "oserror " + (errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__)
    return "bad op"

for spec in sys.argv[1:]:
    if spec == "fail": sys.exit(3)  # a command that fails, so paddock prints its footer
    print(op(spec), flush=True)
)PY";

class Net : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ktest::paddock_bin().empty()) GTEST_SKIP() << "PADDOCK_BIN not set: run through scripts/run-as.sh";
    if (!ktest::user_namespaces_work()) GTEST_SKIP() << "a filtered network needs user namespaces";
    world_ = std::make_unique<ktest::World>();
    ktest::write_file(world_->project + "/client.py", kClient);
  }
  // `paddock run FLAGS -- python3 client.py OPS`
  ktest::Proc client(std::vector<std::string> flags, const std::vector<std::string>& ops) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "python3", world_->project + "/client.py"});
    args.insert(args.end(), ops.begin(), ops.end());
    return world_->paddock(args);
  }
  static std::string port(const Server& s) { return std::to_string(s.port()); }
  std::unique_ptr<ktest::World> world_;
};

std::vector<std::string> lines(const ktest::Proc& p) { return ktest::split_lines(p.out); }

TEST_F(Net, AllowedNamesWorkThroughHttpConnectAndSocks5) {
  Server web(Server::http());
  Server echo(Server::echo());
  auto p = client({"--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1",
                   "--resolve", "allowed.test:127.0.0.1"},
                  {"get:allowed.test:" + port(web) + ":x", "connect:allowed.test:" + port(echo),
                   "socks:allowed.test:" + port(echo)});
  ASSERT_EQ(p.code, 0) << ktest::describe(p);
  auto l = lines(p);
  ASSERT_EQ(l.size(), 3u) << ktest::describe(p);
  EXPECT_EQ(l[0], "status 200 GET /x host=allowed.test:" + port(web));
  EXPECT_EQ(l[1], "echo ping");
  EXPECT_EQ(l[2], "echo ping");
}

// Issue 28: the egress filter's refusals are the session's denials too, exact (the filter
// decided), in the report and live in --denials FILE, each with the flag that allows it.
TEST_F(Net, DeniedHostIsARecordedDenial) {
  Server echo(Server::echo());
  const std::string report = world_->root / "report.json";
  const std::string live = world_->root / "denials.jsonl";
  auto p = client({"--allow-domain", "allowed.test", "--resolve", "denied.test:127.0.0.1", "--report", report,
                   "--denials", live},
                  {"connect:denied.test:" + port(echo), "fail"});
  EXPECT_NE(p.code, 0) << ktest::describe(p);
  auto j = nlohmann::json::parse(ktest::read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << ktest::read_file(report);
  const std::string target = "denied.test:" + port(echo);
  bool found = false;
  for (const auto& d : j["denials"]) {
    if (d["layer"] != "egress" || d["what"] != target) continue;
    found = true;
    EXPECT_EQ(d["op"], "connect") << d.dump();
    EXPECT_EQ(d["allow_with"], "--allow-domain " + target) << d.dump();  // the narrowest: with its port
    EXPECT_GE(d["count"].get<int>(), 1) << d.dump();
  }
  EXPECT_TRUE(found) << j["denials"].dump(2);
  EXPECT_TRUE(ktest::contains(ktest::read_file(live), "\"what\":\"" + target + "\"")) << ktest::read_file(live);
  // Recorded, so the footer does not guess.
  EXPECT_FALSE(ktest::contains(p.err, "may be due to")) << ktest::describe(p);
}

TEST_F(Net, DeniedNamesAreRefusedAndNamedInTheFooter) {
  Server web(Server::http());
  Server echo(Server::echo());
  auto p = client({"--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1",
                   "--resolve", "allowed.test:127.0.0.1", "--resolve", "denied.test:127.0.0.1"},
                  {"get:denied.test:" + port(web) + ":x", "connect:denied.test:" + port(echo),
                   "socks:denied.test:" + port(echo), "plain:denied.test", "connect6:8080", "fail"});
  EXPECT_EQ(p.code, 3) << ktest::describe(p);
  auto l = lines(p);
  ASSERT_EQ(l.size(), 5u) << ktest::describe(p);
  EXPECT_TRUE(ktest::contains(l[4], "connect6 HTTP/1.1 403")) << l[4];
  // An IPv6 target is written with brackets, as --allow-domain and why --host take it.
  EXPECT_TRUE(ktest::contains(p.err, "network: blocked [::1]:8080 (connect)")) << ktest::describe(p);
  EXPECT_TRUE(ktest::contains(l[0], "http-error 403 [paddock] blocked by network policy: host denied.test")) << l[0];
  EXPECT_TRUE(ktest::contains(l[0], "--allow-domain denied.test")) << l[0];
  EXPECT_TRUE(ktest::contains(l[1], "refused HTTP/1.1 403")) << l[1];
  EXPECT_EQ(l[2], "socks-reply 2");
  EXPECT_EQ(l[3], "no-name");
  EXPECT_EQ(web.accepted(), 0);
  EXPECT_EQ(echo.accepted(), 0);
  EXPECT_TRUE(ktest::contains(p.err, "denied.test")) << "the footer names the denied host\n" << ktest::describe(p);
}

// Every decision, allowed and denied, is in the run report with its protocol, count, reason and
// the flag that would allow it.
TEST_F(Net, DecisionsAreInTheRunReport) {
  Server web(Server::http());
  const std::string report = world_->project + "/report.json";
  auto p = client({"--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1",
                   "--resolve", "allowed.test:127.0.0.1", "--resolve", "denied.test:127.0.0.1",
                   "--report", report},
                  {"get:allowed.test:" + port(web) + ":a", "get:allowed.test:" + port(web) + ":b",
                   "get:denied.test:" + port(web) + ":x"});
  ASSERT_EQ(p.code, 0) << ktest::describe(p);
  auto doc = nlohmann::json::parse(ktest::read_file(report), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << ktest::read_file(report);
  ASSERT_TRUE(doc.contains("network") && doc["network"].is_array()) << doc.dump(2);
  const nlohmann::json* allowed = nullptr;
  const nlohmann::json* denied = nullptr;
  for (const auto& d : doc["network"]) {
    if (d["host"] == "allowed.test" && d["allowed"] == true && d["protocol"] == "http") allowed = &d;
    if (d["host"] == "denied.test" && d["allowed"] == false) denied = &d;
  }
  ASSERT_NE(allowed, nullptr) << doc["network"].dump(2);
  EXPECT_EQ((*allowed)["count"], 2) << allowed->dump();
  EXPECT_EQ((*allowed)["port"], web.port());
  ASSERT_NE(denied, nullptr) << doc["network"].dump(2);
  EXPECT_EQ((*denied)["count"], 1);
  EXPECT_EQ((*denied)["allow_with"], "--allow-domain denied.test:" + port(web)) << denied->dump();
  EXPECT_FALSE((*denied)["reason"].get<std::string>().empty());
  // Without a filtered network there is no "network" key.
  auto off = world_->paddock({"run", "--report", report, "--", "true"});
  ASSERT_EQ(off.code, 0) << ktest::describe(off);
  EXPECT_FALSE(nlohmann::json::parse(ktest::read_file(report)).contains("network"));
}

TEST_F(Net, ClientsIgnoringProxyVariablesAreFilteredOrFail) {
  Server web(Server::http());
  auto p = client({"--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1",
                   "--resolve", "allowed.test:127.0.0.1:" + port(web)},
                  {"plain:allowed.test", "raw:192.0.2.1:443", "raw:127.0.0.1:" + port(web)});
  auto l = lines(p);
  ASSERT_EQ(l.size(), 3u) << ktest::describe(p);
  EXPECT_EQ(l[0], "plain HTTP/1.1 200 OK");  // captured by DNS + the transparent listener
  EXPECT_EQ(l[1], "oserror ENETUNREACH");    // a real address: no route in the sandbox
  EXPECT_EQ(l[2], "oserror ECONNREFUSED");   // the host's loopback is not the sandbox's
  EXPECT_EQ(web.accepted(), 1);
}

TEST_F(Net, SshLikeServiceOnARulePort) {
  Server ssh(Server::banner_then_echo());
  auto p = client({"--allow-domain", "ssh.test:22", "--allow-domain", "127.0.0.1",
                   "--resolve", "ssh.test:127.0.0.1:" + port(ssh)},
                  {"banner:ssh.test:22", "banner:ssh.test:2222"});
  auto l = lines(p);
  ASSERT_EQ(l.size(), 2u) << ktest::describe(p);
  EXPECT_EQ(l[0], "banner SSH-2.0-paddock-test");  // the filter does not wait for client bytes on 22
  EXPECT_EQ(l[1], "oserror ECONNREFUSED");          // no rule names 2222: nothing listens there
  EXPECT_EQ(ssh.accepted(), 1);
}

// A real TLS server (openssl s_server with a certificate made for the test) reached through
// CONNECT and through the transparent 443 listener, which reads the real ClientHello's SNI.
TEST_F(Net, RealTlsThroughConnectAndTransparent) {
  ktest::TempDir tmp("paddock-net-tls");
  std::string cert = world_->project + "/cert.pem", key = tmp / "key.pem";
  auto gen = ktest::run({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                         "-subj", "/CN=allowed.test", "-addext", "subjectAltName=DNS:allowed.test",
                         "-keyout", key, "-out", cert});
  if (gen.code != 0) GTEST_SKIP() << "openssl cannot make a test certificate: " << ktest::describe(gen);
  std::uint16_t tls_port = 0;
  { auto probe = paddock::net::testing::listen_loopback(&tls_port); }  // a free port, released
  auto server = ktest::start({"/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:" + std::to_string(tls_port),
                              "-cert", cert, "-key", key, "-www", "-naccept", "2"});
  ASSERT_TRUE(server.wait_for_out("ACCEPT", std::chrono::milliseconds(10000))) << "openssl s_server did not start";
  auto p = client({"--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1",
                   "--resolve", "allowed.test:127.0.0.1:" + std::to_string(tls_port)},
                  {"tls-proxy:allowed.test:" + cert, "tls:allowed.test:" + cert});
  auto l = lines(p);
  ASSERT_EQ(l.size(), 2u) << ktest::describe(p);
  EXPECT_TRUE(l[0].rfind("tls HTTP/1.0 200 ok", 0) == 0) << l[0];
  EXPECT_TRUE(l[1].rfind("tls HTTP/1.0 200 ok", 0) == 0) << l[1];
}

TEST_F(Net, NameResolvingToPrivateAddressIsRefusedUnlessAllowed) {
  Server web(Server::http());
  auto refused = client({"--allow-domain", "allowed.test", "--resolve", "allowed.test:127.0.0.1"},
                        {"get:allowed.test:" + port(web) + ":x"});
  auto l = lines(refused);
  ASSERT_EQ(l.size(), 1u) << ktest::describe(refused);
  EXPECT_TRUE(ktest::contains(l[0], "http-error 403")) << l[0];
  EXPECT_TRUE(ktest::contains(l[0], "loopback")) << l[0];
  EXPECT_TRUE(ktest::contains(l[0], "--allow-domain 127.0.0.1:" + port(web))) << l[0];
  EXPECT_EQ(web.accepted(), 0);

  auto allowed = client({"--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1:" + port(web),
                         "--resolve", "allowed.test:127.0.0.1"},
                        {"get:allowed.test:" + port(web) + ":x"});
  l = lines(allowed);
  ASSERT_EQ(l.size(), 1u) << ktest::describe(allowed);
  EXPECT_EQ(l[0], "status 200 GET /x host=allowed.test:" + port(web));
}

TEST_F(Net, AllowNetMinusDenylist) {
  Server web(Server::http());
  auto p = client({"--allow-net", "--deny-domain", "denied.test", "--allow-domain", "127.0.0.1",
                   "--resolve", "anything.test:127.0.0.1", "--resolve", "denied.test:127.0.0.1"},
                  {"get:anything.test:" + port(web) + ":y", "get:denied.test:" + port(web) + ":z"});
  auto l = lines(p);
  ASSERT_EQ(l.size(), 2u) << ktest::describe(p);
  EXPECT_EQ(l[0], "status 200 GET /y host=anything.test:" + port(web));
  EXPECT_TRUE(ktest::contains(l[1], "http-error 403")) << l[1];
  EXPECT_TRUE(ktest::contains(l[1], "deny rule denied.test")) << l[1];
}

TEST_F(Net, DefaultOffAndAllowNetBehaveAsBefore) {
  Server web(Server::http());
  auto off = client({}, {"raw:127.0.0.1:" + port(web), "raw:192.0.2.1:443"});
  auto l = lines(off);
  ASSERT_EQ(l.size(), 2u) << ktest::describe(off);
  EXPECT_EQ(l[0], "oserror ECONNREFUSED");
  EXPECT_EQ(l[1], "oserror ENETUNREACH");
  EXPECT_EQ(web.accepted(), 0);

  auto host = client({"--allow-net"}, {"raw:127.0.0.1:" + port(web)});
  l = lines(host);
  ASSERT_EQ(l.size(), 1u) << ktest::describe(host);
  EXPECT_EQ(l[0], "raw connected");
}

// `paddock why --host` takes a target the way the footer and the report write it (HOST:PORT).
TEST_F(Net, WhyTakesTheTargetAsTheFooterWritesIt) {
  const std::vector<std::string> rules = {"--allow-domain", "allowed.test:443"};
  auto why = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "why");
    args.insert(args.end(), rules.begin(), rules.end());
    return world_->paddock(args);
  };
  struct Case {
    std::vector<std::string> args;
    int code;
    bool on_stderr;
    std::string says;
  };
  const Case cases[] = {
      {{"--host", "allowed.test:443"}, 0, false, "allowed.test:443: allowed"},
      {{"--host", "allowed.test:80"}, 1, false, "allowed.test:80: denied"},
      {{"--host", "denied.test:80"}, 1, false, "to allow: --allow-domain denied.test"},
      {{"--host", "[::1]:80"}, 1, false, "[::1]:80: denied"},
      {{"--host", "allowed.test:443", "--port", "80"}, 2, true, "names port 443 but --port says 80"},
      {{"--host", "allowed.test:99999"}, 2, true, "invalid port in \"allowed.test:99999\""},
  };
  for (const auto& c : cases) {
    auto p = why(c.args);
    EXPECT_EQ(p.code, c.code) << c.args[1] << "\n" << ktest::describe(p);
    EXPECT_TRUE(ktest::contains(c.on_stderr ? p.err : p.out, c.says)) << c.args[1] << "\n" << ktest::describe(p);
  }
}

// --net-log: each decision is a JSON line in the file while the command still runs; the file is
// appended to, never overwritten; without a filtered network, or where the file cannot be
// opened, paddock refuses before running anything.
TEST_F(Net, NetLogHasEachDecisionWhileTheCommandRuns) {
  Server web(Server::http());
  ktest::TempDir outside;  // not visible in the sandbox
  const std::string log = outside.path() + "/net.jsonl";
  const std::string marker = world_->project + "/log-seen";
  ktest::write_file(log, "{\"earlier\":true}\n");
  ktest::Proc p;
  std::thread run([&] {
    p = client({"--net-log", log, "--allow-domain", "allowed.test", "--allow-domain", "127.0.0.1",
                "--resolve", "allowed.test:127.0.0.1:" + port(web), "--resolve", "denied.test:127.0.0.1"},
               {"get:allowed.test:80:a", "get:denied.test:" + port(web) + ":b", "wait:" + marker});
  });
  bool seen = false;
  for (int i = 0; i < 400 && !seen; ++i) {
    seen = ktest::contains(ktest::read_file(log), "denied.test");
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ktest::write_file(marker, "");
  run.join();
  EXPECT_TRUE(seen) << "the denial was not in the log while the command ran\n" << ktest::read_file(log);
  auto l = lines(p);
  ASSERT_EQ(l.size(), 3u) << ktest::describe(p);
  EXPECT_EQ(l[2], "waited");
  auto log_lines = ktest::split_lines(ktest::read_file(log));
  ASSERT_EQ(log_lines.size(), 3u) << ktest::read_file(log);
  EXPECT_EQ(log_lines[0], "{\"earlier\":true}");
  auto a = nlohmann::json::parse(log_lines[1], nullptr, false);
  auto d = nlohmann::json::parse(log_lines[2], nullptr, false);
  ASSERT_TRUE(a.is_object() && d.is_object()) << ktest::read_file(log);
  EXPECT_EQ(a["host"], "allowed.test");
  EXPECT_EQ(a["port"], 80);
  EXPECT_EQ(a["protocol"], "http");
  EXPECT_EQ(a["allowed"], true);
  EXPECT_TRUE(a["allow_with"].is_null());
  EXPECT_EQ(d["host"], "denied.test");
  EXPECT_EQ(d["allowed"], false);
  EXPECT_EQ(d["allow_with"], "--allow-domain denied.test:" + port(web));
  EXPECT_EQ(a["time"].get<std::string>().size(), 24u) << a["time"];  // 2026-11-23T15:40:01.123Z
  EXPECT_FALSE(ktest::contains(p.err, "writable inside the sandbox")) << p.err;

  auto off = world_->paddock({"run", "--net-log", log, "--", "true"});
  EXPECT_EQ(off.code, 2) << ktest::describe(off);
  EXPECT_TRUE(ktest::contains(off.err, "the network is not filtered")) << off.err;
  auto nowhere = world_->paddock({"run", "--net-log", outside.path() + "/no/such/dir/x", "--allow-domain",
                                  "allowed.test", "--", "true"});
  EXPECT_EQ(nowhere.code, 2) << ktest::describe(nowhere);
  EXPECT_TRUE(ktest::contains(nowhere.err, "cannot open")) << nowhere.err;
  EXPECT_EQ(ktest::split_lines(ktest::read_file(log)).size(), 3u) << "refused runs wrote nothing";

  // In the project, the command could rewrite it: paddock says so.
  auto inside = client({"--net-log", world_->project + "/net.jsonl", "--allow-domain", "allowed.test"}, {});
  EXPECT_TRUE(ktest::contains(inside.err, "is writable inside the sandbox")) << inside.err;
}

// A name the sandbox sends (Host header, SNI, SOCKS5 domain) ends up in the footer on the
// user's terminal, in the run report and the net log: control bytes must arrive escaped, never as
// terminal escape sequences (colours, titles, OSC 52 clipboard writes).
TEST_F(Net, NamesFromTheSandboxReachTheTerminalEscaped) {
  ktest::TempDir outside;
  const std::string report = outside.path() + "/report.json";
  const std::string log = outside.path() + "/net.jsonl";
  // "evil\x1b[31mRED\x1b]52;c;cHdzZWQ=\x07.test" and "x\x1b[2Jy\xff"
  const std::string osc = "6576696c1b5b33316d5245441b5d35323b633b6348647a5a57513d072e74657374";
  const std::string clear = "781b5b324a79ff";
  auto p = client({"--report", report, "--net-log", log, "--allow-domain", "allowed.test",
                   "--resolve", "allowed.test:127.0.0.1:1"},
                  {"badhost:" + osc, "badsocks:" + clear, "fail"});
  EXPECT_EQ(p.code, 3) << ktest::describe(p);
  auto l = lines(p);
  ASSERT_EQ(l.size(), 2u) << ktest::describe(p);
  EXPECT_TRUE(ktest::contains(l[0], "badhost HTTP/1.1 403")) << l[0];
  EXPECT_EQ(l[1], "socks-reply 2");
  const std::string texts[] = {p.err, ktest::read_file(report), ktest::read_file(log)};
  for (const std::string& t : texts) {
    EXPECT_EQ(t.find('\x1b'), std::string::npos) << t;
    EXPECT_EQ(t.find('\x07'), std::string::npos) << t;
    EXPECT_EQ(t.find('\xff'), std::string::npos) << t;
  }
  EXPECT_TRUE(ktest::contains(p.err, "network: blocked evil\\x1b[31mRED\\x1b]52;c;cHdzZWQ=\\x07.test:80"))
      << p.err;
  EXPECT_TRUE(ktest::contains(p.err, "network: blocked x\\x1b[2Jy\\xff:80")) << p.err;
  // In JSON the backslash is itself escaped.
  EXPECT_TRUE(ktest::contains(ktest::read_file(log), "x\\\\x1b[2Jy\\\\xff")) << ktest::read_file(log);
}

// A program that tries ever new names (here 1100 DNS queries for distinct denied names, after
// 150 for one name) cannot grow paddock's memory, the report, the net log or the footer without
// bound: at most 1024 targets are kept one by one, the rest are counted as "(other hosts)"; the
// net log repeats a target only at its 10th, 100th, ... decision; the footer shows ten.
TEST_F(Net, AFloodOfNamesStaysBounded) {
  ktest::TempDir outside;
  const std::string report = outside.path() + "/report.json";
  const std::string log = outside.path() + "/net.jsonl";
  auto p = client({"--report", report, "--net-log", log, "--allow-domain", "allowed.test",
                   "--resolve", "allowed.test:127.0.0.1"},
                  {"dnsflood:1100:150", "fail"});
  EXPECT_EQ(p.code, 3) << ktest::describe(p);
  EXPECT_EQ(lines(p), std::vector<std::string>{"flooded 1250"}) << ktest::describe(p);

  auto r = nlohmann::json::parse(ktest::read_file(report), nullptr, false);
  ASSERT_TRUE(r.is_object()) << ktest::read_file(report);
  const auto& net = r["network"];
  ASSERT_EQ(net.size(), 1025u);
  EXPECT_EQ(net[0]["host"], "rep.denied.test");
  EXPECT_EQ(net[0]["count"], 150);
  EXPECT_EQ(net[1023]["host"], "n1022.denied.test");
  EXPECT_EQ(net[1024]["host"], "(other hosts)");
  EXPECT_EQ(net[1024]["count"], 77);

  // rep: 1st, 10th, 100th; 1023 distinct names; the overflow line's 1st and 10th.
  auto log_lines = ktest::split_lines(ktest::read_file(log));
  EXPECT_EQ(log_lines.size(), 3u + 1023u + 2u);
  auto last = nlohmann::json::parse(log_lines.back(), nullptr, false);
  EXPECT_EQ(last["host"], "(other hosts)");
  EXPECT_EQ(last["count"], 10);

  std::size_t shown = 0;
  for (const auto& line : ktest::split_lines(p.err)) shown += ktest::contains(line, "network: blocked ") ? 1 : 0;
  EXPECT_EQ(shown, 10u) << p.err;
  EXPECT_TRUE(ktest::contains(p.err, "network: 1015 more blocked targets")) << p.err;
}

}  // namespace

// Proxy variables the user passes with --env are never dropped silently (issue 13, bug 2): the
// user's NO_PROXY entries are kept beside the filter's, and a user proxy the filter must replace
// is named on stderr.
TEST_F(Net, UserProxyVariablesAreMergedOrReplacedAndSaid) {
  auto p = world_->paddock({"run", "--allow-domain", "allowed.test", "--env", "NO_PROXY=internal.test",
                            "--env", "HTTP_PROXY=http://corp-proxy.test:8080", "--", "/bin/sh", "-c",
                            "printf '%s|%s\\n' \"$NO_PROXY\" \"$HTTP_PROXY\""});
  ASSERT_EQ(p.code, 0) << ktest::describe(p);
  auto l = lines(p);
  ASSERT_EQ(l.size(), 1u) << ktest::describe(p);
  EXPECT_TRUE(ktest::contains(l[0], "internal.test,localhost,127.0.0.1")) << l[0];
  EXPECT_TRUE(ktest::contains(l[0], "|http://127.0.0.1:")) << l[0];
  EXPECT_TRUE(ktest::contains(p.err, "--env HTTP_PROXY=http://corp-proxy.test:8080 is replaced"))
      << ktest::describe(p);
  // Without user values nothing is said.
  auto quiet = world_->paddock({"run", "--allow-domain", "allowed.test", "--", "/bin/true"});
  ASSERT_EQ(quiet.code, 0) << ktest::describe(quiet);
  EXPECT_FALSE(ktest::contains(quiet.err, "is replaced")) << ktest::describe(quiet);
}

// A local model server on the host's loopback (Ollama, llama.cpp, vLLM): one address rule with its
// port is enough for clients that connect directly, and the footer, `why` and the filter agree
// (issue 13, bug 1). Without the rule the connection is refused and the footer names the flag.
TEST_F(Net, AddressRuleWorksForDirectConnections) {
  Server web(Server::http());
  std::string target = "127.0.0.1:" + port(web);
  auto ok = client({"--allow-domain", target}, {"direct:127.0.0.1:" + port(web)});
  ASSERT_EQ(ok.code, 0) << ktest::describe(ok);
  auto l = lines(ok);
  ASSERT_EQ(l.size(), 1u) << ktest::describe(ok);
  EXPECT_EQ(l[0], "direct HTTP/1.1 200 OK");
  EXPECT_EQ(web.accepted(), 1);

  // A rule for a name on that port opens the listener but not the address.
  auto denied = client({"--allow-domain", "model.test:" + port(web)}, {"direct:127.0.0.1:" + port(web), "fail"});
  l = lines(denied);
  ASSERT_EQ(l.size(), 1u) << ktest::describe(denied);
  EXPECT_NE(l[0], "direct HTTP/1.1 200 OK");
  EXPECT_EQ(web.accepted(), 1);
  EXPECT_TRUE(ktest::contains(denied.err, "blocked " + target + " (tcp)")) << ktest::describe(denied);
  EXPECT_TRUE(ktest::contains(denied.err, "--allow-domain " + target)) << ktest::describe(denied);

  auto why = world_->paddock({"why", "--host", target, "--allow-domain", target});
  EXPECT_EQ(why.code, 0) << ktest::describe(why);
  EXPECT_TRUE(ktest::contains(why.out, target + ": allowed")) << ktest::describe(why);
}

namespace {

// Issue 30, item 7: `--allow-domain localhost:PORT` then a client that skips the proxy for
// localhost (NO_PROXY; curl localhost:PORT, Python's create_connection) reaches the host's
// service: localhost is the loopback addresses on that port. The client tries ::1 first where
// the system says so, and 127.0.0.1 after: neither is named as blocked.
TEST_F(Net, LocalhostRuleReachesAHostServiceDirectly) {
  Server web(Server::http());
  const std::string rule = "localhost:" + port(web);
  auto p = client({"--allow-domain", rule}, {"direct:localhost:" + port(web), "get:localhost:" + port(web) + ":u",
                                            "direct:127.0.0.1:" + port(web), "direct6:" + port(web), "fail"});
  auto l = lines(p);
  ASSERT_EQ(l.size(), 4u) << ktest::describe(p);
  EXPECT_EQ(l[0], "direct HTTP/1.1 200 OK");
  EXPECT_EQ(l[1].rfind("status 200", 0), 0u) << l[1];
  EXPECT_EQ(l[2], "direct HTTP/1.1 200 OK");
  EXPECT_EQ(l[3], "direct6 HTTP/1.1 200 OK");  // [::1] inside, the host's 127.0.0.1 answers
  EXPECT_EQ(web.accepted(), 4);
  EXPECT_FALSE(ktest::contains(p.err, "network: blocked")) << ktest::describe(p);

  // Another port on localhost stays closed, and the refusal is named.
  auto other = client({"--allow-domain", rule}, {"direct:localhost:1", "fail"});
  EXPECT_TRUE(ktest::contains(other.err, "blocked 127.0.0.1:1 (tcp) — allow with --allow-domain 127.0.0.1:1"))
      << ktest::describe(other);

  auto why = world_->paddock({"why", "--host", "localhost:" + port(web), "--allow-domain", rule});
  EXPECT_EQ(why.code, 0) << ktest::describe(why);
  EXPECT_TRUE(ktest::contains(why.out, "rule: " + rule)) << ktest::describe(why);
}

// Issue 30, item 7: `--allow-domain 127.0.0.1` (no port) means every port, as a name without a
// port does, through the proxy; a program that connects to 127.0.0.1 directly on a port no rule
// names is refused inside the sandbox, and that refusal is named in the footer and the net log
// with the rule that carries it. paddock says so when the rule is given, and `why` suggests only
// rules that work for direct clients.
TEST_F(Net, RefusedDirectConnectionsAreNamedInTheFooterAndTheNetLog) {
  Server web(Server::http());
  ktest::TempDir outside;
  const std::string log = outside.path() + "/net.jsonl";
  const std::string target = "127.0.0.1:" + port(web);
  auto p = client({"--net-log", log, "--allow-domain", "127.0.0.1", "--allow-domain", "model.test",
                   "--resolve", "model.test:127.0.0.1"},
                  {"direct:127.0.0.1:" + port(web), "get:model.test:" + port(web) + ":m", "fail"});
  auto l = lines(p);
  ASSERT_EQ(l.size(), 2u) << ktest::describe(p);
  EXPECT_EQ(l[0], "oserror ECONNREFUSED");
  EXPECT_EQ(l[1].rfind("status 200", 0), 0u) << "through the proxy every port is open: " << l[1];
  EXPECT_TRUE(ktest::contains(p.err, "--allow-domain 127.0.0.1 has no port")) << ktest::describe(p);
  EXPECT_TRUE(ktest::contains(p.err, "blocked " + target + " (tcp) — allow with --allow-domain " + target))
      << ktest::describe(p);
  bool logged = false;
  for (const auto& line : ktest::split_lines(ktest::read_file(log))) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    logged = logged || (j.is_object() && j["host"] == "127.0.0.1" && j["port"] == web.port() &&
                        j["allowed"] == false && j["allow_with"] == "--allow-domain " + target &&
                        ktest::contains(j["reason"].get<std::string>(), "nothing listens on " + target));
  }
  EXPECT_TRUE(logged) << ktest::read_file(log);

  auto why = world_->paddock({"why", "--host", "127.0.0.1"});
  EXPECT_EQ(why.code, 1) << ktest::describe(why);
  EXPECT_TRUE(ktest::contains(why.out, "to allow: --allow-domain 127.0.0.1:PORT")) << ktest::describe(why);
  auto with_rule = world_->paddock({"why", "--host", target, "--allow-domain", "127.0.0.1"});
  EXPECT_TRUE(ktest::contains(with_rule.out, "need the port in the rule: --allow-domain " + target))
      << ktest::describe(with_rule);
}

}  // namespace
