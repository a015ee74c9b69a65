// The tools `paddock mcp` offers: their definitions (names, descriptions, input and output
// schemas), the validation of a call's arguments, and the shape of their results.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/config.h"
#include "mcp/executor.h"

namespace paddock::mcp {

using json = nlohmann::json;

inline constexpr const char* kExecuteTool = "execute";
inline constexpr const char* kListEnvironmentsTool = "list_environments";
inline constexpr const char* kCloseSessionTool = "close_session";
inline constexpr const char* kNewSession = "new";

struct ToolContext {
  const Config* config = nullptr;
  bool project_mounted = false;  // the project is visible read-only at /project
  bool sessions = true;          // the executor supports sessions
};

// The array for tools/list.
json tool_definitions(const ToolContext& ctx);
bool is_known_tool(const std::string& name, const ToolContext& ctx);

// The arguments of an `execute` call, validated against the config.
struct ExecuteArgs {
  const Environment* env = nullptr;
  std::string code;
  std::chrono::milliseconds timeout{0};
  std::string session;  // "", "new", or an id
};
// Returns the arguments, or a message for the model (a tool error, per SEP-1303).
std::optional<ExecuteArgs> parse_execute_args(const json& args, const Config& cfg,
                                              std::string& error);

// CallToolResult for an execution.
json execute_result(const ExecuteArgs& args, const ExecOutcome& outcome,
                    const std::string& session_id, bool new_session);
// CallToolResult with isError and a text explanation only.
json tool_error(const std::string& message);
// CallToolResult for list_environments.
json list_environments_result(const ToolContext& ctx, Executor& executor);

// The server's `instructions` for the model.
std::string server_instructions(const ToolContext& ctx);

}  // namespace paddock::mcp
