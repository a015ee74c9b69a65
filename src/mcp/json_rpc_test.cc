#include "mcp/json_rpc.h"

#include <gtest/gtest.h>

namespace paddock::mcp {
namespace {

TEST(JsonRpc, ParsesRequest) {
  auto p = parse_message(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}})");
  ASSERT_TRUE(p.ok()) << p.failure.message;
  EXPECT_EQ(p.message->kind, Message::Kind::Request);
  EXPECT_EQ(p.message->id, 7);
  EXPECT_EQ(p.message->method, "tools/list");
  EXPECT_TRUE(p.message->params.is_object());
}

TEST(JsonRpc, ParsesNotificationAndResponse) {
  auto n = parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.message->kind, Message::Kind::Notification);
  auto r = parse_message(R"({"jsonrpc":"2.0","id":"a","result":{}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.message->kind, Message::Kind::Response);
}

TEST(JsonRpc, ParseErrors) {
  for (const char* bad : {"", "{", "{\"jsonrpc\":\"2.0\",", "nul", "\xff\xfe"}) {
    auto p = parse_message(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.failure.code, rpc_error::kParseError) << bad;
    EXPECT_TRUE(p.failure.id.is_null());
  }
}

TEST(JsonRpc, InvalidRequests) {
  struct Case {
    const char* text;
    bool has_id;
  } cases[] = {
      {R"([])", false},
      {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", false},
      {R"(42)", false},
      {R"({"id":1,"method":"ping"})", true},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", true},
      {R"({"jsonrpc":"2.0","id":1,"method":5})", true},
      {R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})", false},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", false},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","params":"x"})", true},
      {R"({"jsonrpc":"2.0","id":1})", true},
      {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})", true},
  };
  for (const auto& c : cases) {
    auto p = parse_message(c.text);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.failure.code, rpc_error::kInvalidRequest) << c.text;
    EXPECT_EQ(!p.failure.id.is_null(), c.has_id) << c.text;
  }
}

TEST(JsonRpc, RefusesHugeAndDeepMessages) {
  std::string huge = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":")" +
                     std::string(2000, 'a') + "\"}}";
  auto p = parse_message(huge, ParseLimits{1000, 64});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.failure.code, rpc_error::kInvalidRequest);

  std::string deep(100000, '[');
  auto d = parse_message(deep);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.failure.code, rpc_error::kParseError);
  std::string deep_ok = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":)" +
                        std::string(100, '[') + std::string(100, ']') + "}}";
  EXPECT_FALSE(parse_message(deep_ok).ok());
}

TEST(JsonRpc, WireFormatIsOneLineAndSurvivesInvalidUtf8) {
  json m = result_response(1, {{"text", std::string("a\nb\xff\xfe", 5)}});
  std::string w = to_wire(m);
  EXPECT_EQ(w.find('\n'), std::string::npos);
  EXPECT_NE(w.find("\\n"), std::string::npos);
  EXPECT_TRUE(parse_message(w).ok());
}

TEST(JsonRpc, ErrorShape) {
  json e = error_response("x", rpc_error::kMethodNotFound, "nope");
  EXPECT_EQ(e["jsonrpc"], "2.0");
  EXPECT_EQ(e["id"], "x");
  EXPECT_EQ(e["error"]["code"], -32601);
  EXPECT_EQ(e["error"]["message"], "nope");
  EXPECT_FALSE(e["error"].contains("data"));
}

}  // namespace
}  // namespace paddock::mcp
