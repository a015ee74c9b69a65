#include "mcp/tools.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/report.h"
#include "net/domain_policy.h"
#include "net/host_rule.h"

namespace paddock::mcp {
namespace {

std::uint32_t max_timeout(const Config& cfg) {
  std::uint32_t m = 1;
  for (const auto& [name, env] : cfg.environments) m = std::max(m, env.limits.timeout_seconds);
  return m;
}

bool filtered(const Environment& env) {
  return net::domain_lists_filter(env.network, env.allow_domains, env.deny_domains);
}

std::string describe_network(const Environment& env) {
  if (filtered(env) && env.network) return fmt::format(", network except {}", fmt::join(env.deny_domains, ", "));
  if (filtered(env)) return fmt::format(", network only to {}", fmt::join(env.allow_domains, ", "));
  return env.network ? ", network allowed" : "";
}

std::string describe_limits(const Environment& env) {
  const FileSpace fs = file_space(env.limits);
  return fmt::format("timeout {} s, memory {} MB, {} processes, output {} KiB per stream, files in memory "
                     "within the memory limit: /workspace {} MB, /tmp {} MB, /dev/shm {} MB{}",
                     env.limits.timeout_seconds, env.limits.memory_mb, env.limits.pids,
                     env.limits.max_output_bytes / 1024, fs.workspace_bytes >> 20, fs.tmp_bytes >> 20,
                     fs.shm_bytes >> 20, describe_network(env));
}

std::string sandbox_summary(const ToolContext& ctx) {
  std::string s =
      "Each call runs in a new, isolated sandbox: an empty writable /workspace (the working "
      "directory and HOME; /tmp is private too) that is discarded afterwards, the host's system "
      "programs and libraries read-only, no other host files, no network unless the environment "
      "allows it, and limits on time, memory, processes and output.";
  if (ctx.project_mounted) s += " The user's project is readable (not writable) at /project.";
  if (ctx.sessions)
    s += " Nothing persists between calls unless you use a session: pass session=\"new\" to "
         "start one, then the returned id to keep variables and files across calls.";
  return s;
}

json execute_output_schema() {
  return json{
      {"type", "object"},
      {"properties",
       {
           {"environment", {{"type", "string"}}},
           {"stdout", {{"type", "string"}, {"description", "standard output (maybe truncated)"}}},
           {"stderr", {{"type", "string"}, {"description", "standard error (maybe truncated)"}}},
           {"exit_code",
            {{"type", "integer"}, {"description", "exit status; 128+N when killed by signal N"}}},
           {"signal", {{"type", "integer"}, {"description", "the signal that killed it, or 0"}}},
           {"timed_out", {{"type", "boolean"}}},
           {"oom", {{"type", "boolean"}, {"description", "killed by the memory limit"}}},
           {"cancelled", {{"type", "boolean"}}},
           {"truncated", {{"type", "boolean"}, {"description", "some output was not kept"}}},
           {"stdout_bytes", {{"type", "integer"}}},
           {"stderr_bytes", {{"type", "integer"}}},
           {"duration_ms", {{"type", "number"}}},
           {"session", {{"type", "string"}, {"description", "the session the code ran in"}}},
           {"error", {{"type", "string"}, {"description", "why the code could not run"}}},
           {"network",
            {{"type", "array"},
             {"description",
              "environments with a domain allowlist: each host the code tried, allowed or not"},
             {"items",
              {{"type", "object"},
               {"properties",
                {{"host", {{"type", "string"}}},
                 {"port", {{"type", "integer"}}},
                 {"protocol", {{"type", "string"}}},
                 {"allowed", {{"type", "boolean"}}},
                 {"count", {{"type", "integer"}}},
                 {"reason", {{"type", "string"}}}}}}}}},
       }},
      {"required", json::array({"environment", "stdout", "stderr", "exit_code", "timed_out",
                                "truncated", "duration_ms"})},
  };
}

std::string human_bytes(std::uint64_t n) {
  if (n >= (1u << 20)) return fmt::format("{:.1f} MiB", n / 1048576.0);
  if (n >= 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  return fmt::format("{} bytes", n);
}

}  // namespace

json tool_definitions(const ToolContext& ctx) {
  const Config& cfg = *ctx.config;
  json names = json::array();
  std::string env_lines;
  for (const auto& [name, env] : cfg.environments) {
    names.push_back(name);
    env_lines += fmt::format("\n- {}: {} ({})", name, env.description, describe_limits(env));
  }
  json props = {
      {"environment",
       {{"type", "string"}, {"enum", names}, {"description", "where to run the code"}}},
      {"code", {{"type", "string"}, {"description", "the program text"}}},
      {"timeout_seconds",
       {{"type", "integer"},
        {"minimum", 1},
        {"maximum", max_timeout(cfg)},
        {"description", "stop the program after this many seconds (at most the environment's "
                        "timeout, which is also the default)"}}},
  };
  if (ctx.sessions)
    props["session"] = {{"type", "string"},
                        {"description",
                         "omit for a fresh sandbox; \"new\" to start a persistent session; or a "
                         "session id returned by an earlier call to continue it"}};
  json execute = {
      {"name", kExecuteTool},
      {"title", "Execute code in a sandbox"},
      {"description", "Runs code and returns its output (stdout, then stderr after a "
                      "'--- stderr ---' line). " +
                          sandbox_summary(ctx) + "\nEnvironments:" + env_lines},
      {"inputSchema",
       {{"type", "object"},
        {"properties", props},
        {"required", json::array({"environment", "code"})},
        {"additionalProperties", false}}},
      {"outputSchema", execute_output_schema()},
      {"annotations",
       {{"title", "Execute code in a sandbox"},
        {"readOnlyHint", false},
        {"destructiveHint", false},
        {"idempotentHint", false},
        {"openWorldHint", false}}},
  };
  json list = {
      {"name", kListEnvironmentsTool},
      {"title", "List execution environments"},
      {"description",
       "Lists the environments `execute` can use, with their interpreters and limits."},
      {"inputSchema", {{"type", "object"}, {"properties", json::object()},
                       {"additionalProperties", false}}},
      {"outputSchema",
       {{"type", "object"},
        {"properties", {{"environments", {{"type", "array"}, {"items", {{"type", "object"}}}}}}},
        {"required", json::array({"environments"})}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}},
  };
  json tools = json::array({execute, list});
  if (ctx.sessions) {
    tools.push_back({
        {"name", kCloseSessionTool},
        {"title", "Close a session"},
        {"description", "Ends a session started with execute(session=\"new\") and deletes its "
                        "sandbox and files. Sessions also end after a while unused and when the "
                        "client disconnects."},
        {"inputSchema",
         {{"type", "object"},
          {"properties", {{"session", {{"type", "string"}}}}},
          {"required", json::array({"session"})},
          {"additionalProperties", false}}},
        {"annotations", {{"destructiveHint", true}, {"idempotentHint", true},
                         {"openWorldHint", false}}},
    });
  }
  return tools;
}

bool is_known_tool(const std::string& name, const ToolContext& ctx) {
  return name == kExecuteTool || name == kListEnvironmentsTool ||
         (ctx.sessions && name == kCloseSessionTool);
}

std::optional<ExecuteArgs> parse_execute_args(const json& args, const Config& cfg,
                                              std::string& error) {
  static const char* const kKnown[] = {"environment", "code", "timeout_seconds", "session"};
  for (auto it = args.begin(); it != args.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known) {
      error = "unknown argument \"" + it.key() +
              "\" (execute takes environment, code, timeout_seconds, session)";
      return std::nullopt;
    }
  }
  ExecuteArgs out;
  auto env = args.find("environment");
  if (env == args.end() || !env->is_string()) {
    error = "\"environment\" is required and must be a string";
    return std::nullopt;
  }
  out.env = cfg.find(env->get<std::string>());
  if (!out.env) {
    std::string names;
    for (const auto& [name, e] : cfg.environments) names += (names.empty() ? "" : ", ") + name;
    error = "unknown environment \"" + env->get<std::string>() + "\" (available: " + names + ")";
    return std::nullopt;
  }
  auto code = args.find("code");
  if (code == args.end() || !code->is_string()) {
    error = "\"code\" is required and must be a string";
    return std::nullopt;
  }
  out.code = code->get<std::string>();
  std::uint32_t cap = out.env->limits.timeout_seconds;
  out.timeout = std::chrono::seconds(cap);
  if (auto t = args.find("timeout_seconds"); t != args.end() && !t->is_null()) {
    if (!t->is_number() || t->get<double>() <= 0) {
      error = "\"timeout_seconds\" must be a positive number";
      return std::nullopt;
    }
    double s = t->get<double>();
    if (s > cap) {
      error = fmt::format("\"timeout_seconds\" is at most {} for environment \"{}\"", cap,
                          out.env->name);
      return std::nullopt;
    }
    out.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000));
  }
  if (auto s = args.find("session"); s != args.end() && !s->is_null()) {
    if (!s->is_string() || s->get<std::string>().empty()) {
      error = "\"session\" must be \"new\" or a session id";
      return std::nullopt;
    }
    out.session = s->get<std::string>();
  }
  return out;
}

json execute_result(const ExecuteArgs& args, const ExecOutcome& o, const std::string& session_id,
                    bool new_session) {
  bool truncated = o.stdout_truncated || o.stderr_truncated;
  json sc = {
      {"environment", args.env->name},
      {"stdout", o.stdout_data},
      {"stderr", o.stderr_data},
      {"exit_code", o.exit_code},
      {"signal", o.signal},
      {"timed_out", o.timed_out},
      {"oom", o.oom},
      {"cancelled", o.cancelled},
      {"truncated", truncated},
      {"stdout_bytes", o.stdout_bytes},
      {"stderr_bytes", o.stderr_bytes},
      {"duration_ms", o.duration.count()},
  };
  if (!session_id.empty()) sc["session"] = session_id;
  std::vector<std::string> blocked;
  if (o.network_filtered) {
    json network = json::array();
    for (const NetworkDecision& d : o.network) {
      json j = network_decision_json(d);
      j.erase("allow_with");  // a flag of paddock run; here the server's configuration decides
      network.push_back(std::move(j));
      std::string target = net::join_host_port(d.host, d.port);
      if (!d.allowed && std::find(blocked.begin(), blocked.end(), target) == blocked.end())
        blocked.push_back(std::move(target));
    }
    sc["network"] = std::move(network);
  }

  std::string text = o.stdout_data;
  if (o.stdout_truncated)
    text += fmt::format("\n[stdout truncated: {} of {} shown]", human_bytes(o.stdout_data.size()),
                        human_bytes(o.stdout_bytes));
  if (!o.stderr_data.empty() || o.stderr_truncated) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "--- stderr ---\n" + o.stderr_data;
    if (o.stderr_truncated)
      text += fmt::format("\n[stderr truncated: {} of {} shown]",
                          human_bytes(o.stderr_data.size()), human_bytes(o.stderr_bytes));
  }

  std::string reason;
  if (o.status == ExecOutcome::Status::Failed) {
    reason = "could not run: " + o.error;
    sc["error"] = o.error;
  } else if (o.timed_out) {
    reason = fmt::format("timed out after {:.3g} s (the program was killed)",
                         args.timeout.count() / 1000.0);
  } else if (o.oom) {
    reason = fmt::format("killed: memory limit of {} MB reached", args.env->limits.memory_mb);
  } else if (o.cancelled) {
    reason = "cancelled";
  } else if (o.signal != 0) {
    reason = fmt::format("killed by signal {}", o.signal);
  } else if (o.exit_code != 0) {
    reason = fmt::format("exit code {}", o.exit_code);
  }
  if (o.pids_limit_hit)
    reason += fmt::format("{}process limit of {} reached", reason.empty() ? "" : "; ",
                          args.env->limits.pids);
  if (!reason.empty()) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "[" + reason + "]";
  }
  if (!blocked.empty()) {
    // Said whatever the exit code: a program may swallow the error and go on.
    text += fmt::format("{}[network: blocked {}; environment \"{}\" may reach only what its "
                        "allow_domains and deny_domains in the MCP server's configuration permit]",
                        text.empty() || text.back() == '\n' ? "" : "\n", fmt::join(blocked, ", "),
                        args.env->name);
  }
  if (new_session)
    text += fmt::format("{}[session {} started: pass session=\"{}\" to continue it]",
                        text.empty() || text.back() == '\n' ? "" : "\n", session_id, session_id);
  if (text.empty()) text = "(no output)";

  return json{
      {"content", json::array({{{"type", "text"}, {"text", text}}})},
      {"structuredContent", sc},
      {"isError", !reason.empty()},
  };
}

json tool_error(const std::string& message) {
  return json{{"content", json::array({{{"type", "text"}, {"text", message}}})},
              {"isError", true}};
}

json list_environments_result(const ToolContext& ctx, Executor& executor) {
  json envs = json::array();
  std::string text;
  for (const auto& [name, env] : ctx.config->environments) {
    json e = {
        {"name", name},
        {"description", env.description},
        {"interpreter", env.command.empty() ? "" : env.command[0]},
        {"code_via", to_string(env.code_via)},
        {"network", env.network},
        {"allow_domains", env.allow_domains},
        {"deny_domains", env.deny_domains},
        {"timeout_seconds", env.limits.timeout_seconds},
        {"memory_mb", env.limits.memory_mb},
        {"pids", env.limits.pids},
        {"max_output_bytes", env.limits.max_output_bytes},
        {"files_mb", {{"workspace", file_space(env.limits).workspace_bytes >> 20},
                      {"tmp", file_space(env.limits).tmp_bytes >> 20},
                      {"dev_shm", file_space(env.limits).shm_bytes >> 20}}},
    };
    std::string facts = executor.describe(env);
    if (!facts.empty()) e["status"] = facts;
    text += fmt::format("{}: {} [{}; {}]{}\n", name, env.description,
                        env.command.empty() ? "" : env.command[0], describe_limits(env),
                        facts.empty() ? "" : " " + facts);
    envs.push_back(std::move(e));
  }
  text += sandbox_summary(ctx);
  return json{{"content", json::array({{{"type", "text"}, {"text", text}}})},
              {"structuredContent", {{"environments", envs}}},
              {"isError", false}};
}

std::string server_instructions(const ToolContext& ctx) {
  std::string names;
  for (const auto& [name, env] : ctx.config->environments) names += (names.empty() ? "" : ", ") + name;
  return "paddock runs code in sandboxes. Use the `execute` tool with an environment (" + names +
         ") and the code to run; `list_environments` shows interpreters and limits. " +
         sandbox_summary(ctx);
}

}  // namespace paddock::mcp
