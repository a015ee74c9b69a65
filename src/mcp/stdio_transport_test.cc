#include "mcp/stdio_transport.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "mcp/fake_executor.h"

namespace paddock::mcp {
namespace {

// Feeds `input` to serve_stdio through a pipe and returns every line it wrote.
std::vector<json> run_stdio(const std::string& input, std::size_t max_line = 8u << 20) {
  Config cfg;
  Environment py;
  py.name = "python";
  py.command = {"/usr/bin/python3"};
  cfg.environments["python"] = py;
  Server server(cfg, std::make_shared<FakeExecutor>(), ServerOptions{});
  int in[2], out[2];
  EXPECT_EQ(::pipe(in), 0);
  EXPECT_EQ(::pipe(out), 0);
  std::thread writer([&] {
    std::size_t off = 0;
    while (off < input.size()) {
      ssize_t n = ::write(in[1], input.data() + off, input.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    ::close(in[1]);
  });
  std::string collected;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(out[0], buf, sizeof buf)) > 0) collected.append(buf, static_cast<std::size_t>(n));
  });
  serve_stdio(server, in[0], out[1], max_line);
  ::close(out[1]);
  writer.join();
  reader.join();
  ::close(in[0]);
  ::close(out[0]);
  std::vector<json> lines;
  std::istringstream ss(collected);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(json::parse(line));
  return lines;
}

TEST(Stdio, SessionOverPipes) {
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\r\n\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"environment":"python","code":"print:2"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"ping"})";  // no final newline
  auto lines = run_stdio(input);
  ASSERT_EQ(lines.size(), 3u);
  std::map<int, json> by_id;
  for (auto& l : lines) by_id[l["id"].get<int>()] = l;
  EXPECT_EQ(by_id[1]["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(by_id[2]["result"]["content"][0]["text"], "2");
  EXPECT_TRUE(by_id[3]["result"].is_object());
}

TEST(Stdio, OverlongLineIsRefusedAndReadingContinues) {
  std::string input = std::string(5000, 'x') + "\n" + R"({"jsonrpc":"2.0","id":9,"method":"ping"})" + "\n";
  auto lines = run_stdio(input, 1000);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["error"]["code"], rpc_error::kInvalidRequest);
  EXPECT_EQ(lines[1]["id"], 9);
}

}  // namespace
}  // namespace paddock::mcp
