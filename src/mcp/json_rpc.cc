#include "mcp/json_rpc.h"

#include <exception>

namespace paddock::mcp {
namespace {

struct TooDeep {};

ParseFailure invalid(std::string message, json id = nullptr) {
  return {rpc_error::kInvalidRequest, std::move(message), std::move(id)};
}

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

Parsed parse_message(std::string_view raw, const ParseLimits& limits) {
  Parsed out;
  if (raw.size() > limits.max_bytes) {
    out.failure = invalid("message too large (" + std::to_string(raw.size()) + " bytes; limit " +
                          std::to_string(limits.max_bytes) + ")");
    return out;
  }
  json j;
  try {
    // The callback sees every value start with its depth; refusing deep nesting here keeps
    // later recursive code (dump, comparisons) off deep stacks.
    int max_depth = limits.max_depth;
    json::parser_callback_t guard = [max_depth](int depth, json::parse_event_t, json&) {
      if (depth > max_depth) throw TooDeep{};
      return true;
    };
    j = json::parse(raw.begin(), raw.end(), guard);
  } catch (const TooDeep&) {
    out.failure = {rpc_error::kParseError,
                   "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels",
                   nullptr};
    return out;
  } catch (const std::exception& e) {
    out.failure = {rpc_error::kParseError, std::string("parse error: ") + e.what(), nullptr};
    return out;
  }

  if (j.is_array()) {
    out.failure = invalid("batches are not supported (send one message per line)");
    return out;
  }
  if (!j.is_object()) {
    out.failure = invalid("a JSON-RPC message must be an object");
    return out;
  }
  json id = nullptr;
  if (auto it = j.find("id"); it != j.end()) {
    if (valid_id(*it)) id = *it;
  }
  auto version = j.find("jsonrpc");
  if (version == j.end() || !version->is_string() || *version != "2.0") {
    out.failure = invalid(R"("jsonrpc" must be "2.0")", id);
    return out;
  }

  Message m;
  auto method = j.find("method");
  bool has_id = j.contains("id");
  if (method != j.end()) {
    if (!method->is_string()) {
      out.failure = invalid(R"("method" must be a string)", id);
      return out;
    }
    m.method = method->get<std::string>();
    if (has_id) {
      if (!valid_id(j["id"])) {
        out.failure = invalid(R"("id" must be a string or an integer)");
        return out;
      }
      m.kind = Message::Kind::Request;
      m.id = j["id"];
    } else {
      m.kind = Message::Kind::Notification;
    }
    if (auto p = j.find("params"); p != j.end()) {
      if (!p->is_object() && !p->is_array()) {
        out.failure = invalid(R"("params" must be an object)", id);
        return out;
      }
      m.params = *p;
    }
    out.message = std::move(m);
    return out;
  }

  // No method: a response to something we sent (we send no requests, but accept and ignore).
  bool has_result = j.contains("result");
  bool has_error = j.contains("error");
  if (!has_id || has_result == has_error) {
    out.failure = invalid("not a request, notification or response", id);
    return out;
  }
  m.kind = Message::Kind::Response;
  m.id = j["id"];
  if (has_result) m.result = j["result"];
  if (has_error) m.error = j["error"];
  out.message = std::move(m);
  return out;
}

json result_response(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json error_response(const json& id, int code, std::string_view message, json data) {
  json err{{"code", code}, {"message", message}};
  if (!data.is_null()) err["data"] = std::move(data);
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

json notification(std::string_view method, json params) {
  json n{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) n["params"] = std::move(params);
  return n;
}

std::string to_wire(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace paddock::mcp
