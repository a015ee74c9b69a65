// JSON-RPC 2.0 framing for MCP: one incoming message (request, notification or response) parsed
// from raw bytes, and the outgoing response/error/notification shapes. No I/O, never throws.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace paddock::mcp {

using json = nlohmann::json;

// The error codes the JSON-RPC 2.0 specification reserves (MCP uses them as-is).
namespace rpc_error {
inline constexpr int kParseError = -32700;      // not valid JSON
inline constexpr int kInvalidRequest = -32600;  // valid JSON, not a valid request object
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
}  // namespace rpc_error

struct Message {
  enum class Kind { Request, Notification, Response };
  Kind kind = Kind::Request;
  json id;              // string or integer for requests and responses; null otherwise
  std::string method;   // requests and notifications
  json params;          // object, array or null (absent)
  json result;          // responses
  json error;           // error responses (object); null for results

  bool is_request() const { return kind == Kind::Request; }
};

// Why a message was rejected, and the id to answer with (null when it could not be read).
struct ParseFailure {
  int code = rpc_error::kParseError;
  std::string message;
  json id;
};

struct Parsed {
  std::optional<Message> message;
  ParseFailure failure;  // meaningful when !message
  bool ok() const { return message.has_value(); }
};

struct ParseLimits {
  std::size_t max_bytes = 8u << 20;  // a message larger than this is refused before parsing
  int max_depth = 64;                // nesting deeper than this is refused (stack safety)
};

// Parses one JSON-RPC message. Batches (arrays) are refused as invalid requests: MCP removed
// them in 2025-06-18 and paddock does not implement them for older revisions either.
Parsed parse_message(std::string_view raw, const ParseLimits& limits = {});

json result_response(const json& id, json result);
json error_response(const json& id, int code, std::string_view message, json data = nullptr);
json notification(std::string_view method, json params);

// Serialises for the wire: compact, one line, invalid UTF-8 (program output) replaced by U+FFFD.
std::string to_wire(const json& message);

}  // namespace paddock::mcp
