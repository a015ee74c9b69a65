#include "mcp/server.h"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

namespace paddock::mcp {

struct Connection::Call {
  json id;
  json progress_token;  // null: the client did not ask for progress
  std::shared_ptr<Outbox> out;
  std::shared_ptr<CallControl> control = std::make_shared<CallControl>();
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::chrono::milliseconds timeout{0};
  std::mutex mu;
  bool finished = false;  // the response was sent (or suppressed): no more progress
  double last_progress = -1;
};

namespace {

const char* const kNotInitialized = "server not initialized: send initialize first";

std::string key_of(const json& id) { return id.dump(); }

}  // namespace

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26",
                                             "2024-11-05"};
  return v;
}

bool Connection::initialized() const {
  std::lock_guard lock(mu_);
  return initialized_;
}

std::string Connection::protocol_version() const {
  std::lock_guard lock(mu_);
  return protocol_version_;
}

Server::Server(Config config, std::shared_ptr<Executor> executor, ServerOptions options)
    : config_(std::move(config)),
      executor_(std::move(executor)),
      options_(std::move(options)),
      sessions_(SessionTable::Limits{std::chrono::seconds(config_.defaults.session_idle_seconds),
                                     std::chrono::seconds(config_.defaults.session_max_seconds),
                                     config_.defaults.max_sessions}),
      workers_(config_.defaults.max_concurrency) {
  tool_ctx_.config = &config_;
  tool_ctx_.project_mounted = options_.project_mounted;
  tool_ctx_.sessions = config_.defaults.max_sessions > 0;
  ticker_ = std::thread([this] { ticker(); });
}

Server::~Server() {
  {
    std::lock_guard lock(tick_mu_);
    stopping_ = true;
  }
  tick_cv_.notify_all();
  ticker_.join();
  cancel_all();
  workers_.wait_idle();
  for (const auto& handle : sessions_.remove_all())
    executor_->close_session(handle);
}

std::shared_ptr<Connection> Server::connect() {
  auto c = std::make_shared<Connection>();
  c->id_ = "c" + std::to_string(next_conn_++);
  return c;
}

void Server::disconnect(const std::shared_ptr<Connection>& conn) {
  std::vector<std::shared_ptr<Connection::Call>> calls;
  {
    std::lock_guard lock(conn->mu_);
    conn->closed_ = true;
    for (auto& [k, c] : conn->calls_) calls.push_back(c);
  }
  for (auto& c : calls) c->control->cancel();
  for (const auto& handle : sessions_.remove_owner(conn->id())) executor_->close_session(handle);
}

void Server::wait_idle() { workers_.wait_idle(); }

void Server::cancel_all() {
  std::lock_guard lock(calls_mu_);
  for (auto& w : active_calls_)
    if (auto c = w.lock()) c->control->cancel();
}

void Server::handle_raw(const std::shared_ptr<Connection>& conn, std::string_view raw,
                        const std::shared_ptr<Outbox>& out) {
  Parsed p = parse_message(raw, options_.parse_limits);
  if (!p.ok()) {
    out->send(error_response(p.failure.id, p.failure.code, p.failure.message));
    out->done();
    return;
  }
  handle(conn, std::move(*p.message), out);
}

void Server::handle(const std::shared_ptr<Connection>& conn, Message m,
                    const std::shared_ptr<Outbox>& out) {
  auto reply = [&](json message) {
    out->send(message);
    out->done();
  };
  if (m.kind == Message::Kind::Response) return;  // we send no requests; nothing to match
  if (m.kind == Message::Kind::Notification) {
    if (m.method == "notifications/cancelled") {
      if (!m.params.is_object() || !m.params.contains("requestId")) return;
      std::shared_ptr<Connection::Call> call;
      {
        std::lock_guard lock(conn->mu_);
        auto it = conn->calls_.find(key_of(m.params["requestId"]));
        if (it != conn->calls_.end()) call = it->second;
      }
      if (call) call->control->cancel();
    } else if (m.method == "notifications/initialized") {
      // Nothing to do: requests are served from the initialize response on.
    }
    return;  // unknown notifications are ignored, as JSON-RPC requires
  }

  // A request.
  if (!m.params.is_null() && !m.params.is_object()) {
    return reply(error_response(m.id, rpc_error::kInvalidParams, "params must be an object"));
  }
  if (m.method == "ping") return reply(result_response(m.id, json::object()));
  if (m.method == "initialize") {
    std::string error;
    int code = 0;
    json result = handle_initialize(*conn, m.params, error, code);
    if (!error.empty()) return reply(error_response(m.id, code, error));
    return reply(result_response(m.id, std::move(result)));
  }
  if (!conn->initialized()) {
    return reply(error_response(m.id, rpc_error::kInvalidRequest, kNotInitialized));
  }
  if (m.method == "tools/list") {
    return reply(result_response(m.id, json{{"tools", tool_definitions(tool_ctx_)}}));
  }
  if (m.method == "tools/call") return handle_tools_call(conn, m, out);
  reply(error_response(m.id, rpc_error::kMethodNotFound, "method not found: " + m.method));
}

json Server::handle_initialize(Connection& conn, const json& params, std::string& error,
                               int& code) {
  code = rpc_error::kInvalidParams;
  if (!params.is_object() || !params.contains("protocolVersion") ||
      !params["protocolVersion"].is_string()) {
    error = "initialize needs params.protocolVersion (a string)";
    return nullptr;
  }
  if (auto ci = params.find("clientInfo"); ci != params.end() && !ci->is_object()) {
    error = "clientInfo must be an object";
    return nullptr;
  }
  if (auto caps = params.find("capabilities"); caps != params.end() && !caps->is_object()) {
    error = "capabilities must be an object";
    return nullptr;
  }
  std::string asked = params["protocolVersion"].get<std::string>();
  const auto& versions = supported_protocol_versions();
  std::string chosen = std::find(versions.begin(), versions.end(), asked) != versions.end()
                           ? asked
                           : versions.front();
  {
    std::lock_guard lock(conn.mu_);
    if (conn.initialized_) {
      code = rpc_error::kInvalidRequest;
      error = "already initialized";
      return nullptr;
    }
    conn.initialized_ = true;
    conn.protocol_version_ = chosen;
  }
  json server_info = {{"name", "paddock"}, {"version", options_.version}};
  if (chosen >= "2025-06-18") server_info["title"] = "paddock code execution";
  return json{
      {"protocolVersion", chosen},
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo", server_info},
      {"instructions", server_instructions(tool_ctx_)},
  };
}

void Server::handle_tools_call(const std::shared_ptr<Connection>& conn, const Message& m,
                               const std::shared_ptr<Outbox>& out) {
  auto reply = [&](json message) {
    out->send(message);
    out->done();
  };
  const json& p = m.params;
  if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
    return reply(error_response(m.id, rpc_error::kInvalidParams, "tools/call needs params.name"));
  std::string name = p["name"].get<std::string>();
  if (!is_known_tool(name, tool_ctx_))
    return reply(error_response(m.id, rpc_error::kInvalidParams, "unknown tool: " + name));
  json args = json::object();
  if (auto a = p.find("arguments"); a != p.end() && !a->is_null()) {
    if (!a->is_object())
      return reply(error_response(m.id, rpc_error::kInvalidParams, "arguments must be an object"));
    args = *a;
  }

  if (name == kListEnvironmentsTool)
    return reply(result_response(m.id, list_environments_result(tool_ctx_, *executor_)));
  if (name == kCloseSessionTool) return reply(result_response(m.id, close_session(*conn, args)));

  std::string error;
  auto exec_args = parse_execute_args(args, config_, error);
  if (!exec_args) return reply(result_response(m.id, tool_error(error)));
  if (!exec_args->session.empty() && !tool_ctx_.sessions)
    return reply(result_response(m.id, tool_error("sessions are disabled on this server")));

  auto call = std::make_shared<Connection::Call>();
  call->id = m.id;
  call->out = out;
  call->timeout = exec_args->timeout;
  if (auto meta = p.find("_meta"); meta != p.end() && meta->is_object()) {
    if (auto t = meta->find("progressToken");
        t != meta->end() && (t->is_string() || t->is_number_integer()))
      call->progress_token = *t;
  }
  {
    std::lock_guard lock(conn->mu_);
    if (conn->closed_) return out->done();
    if (!conn->calls_.emplace(key_of(m.id), call).second)
      return reply(error_response(m.id, rpc_error::kInvalidRequest,
                              "a request with this id is already in progress"));
  }
  {
    std::lock_guard lock(calls_mu_);
    active_calls_.push_back(call);
  }
  workers_.post([this, conn, call, a = std::move(*exec_args)]() mutable {
    run_execute(conn, call, std::move(a));
  });
}

void Server::run_execute(const std::shared_ptr<Connection>& conn,
                         const std::shared_ptr<Connection::Call>& call, ExecuteArgs args) {
  // Tells the observer how the call went, whichever way run_execute leaves.
  struct Observed {
    CallObserver* observer;
    std::string env;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    bool in_session = false;
    void report(const ExecOutcome* outcome) {
      if (observer) observer->call_finished(env, outcome, in_session, std::chrono::steady_clock::now() - t0);
      observer = nullptr;
    }
    ~Observed() { report(nullptr); }
  } observed{options_.observer.get(), args.env->name};
  if (observed.observer) observed.observer->call_started(observed.env);
  json result;
  try {
    std::string session_id;
    std::string handle;
    bool new_session = false;
    if (call->control->cancelled()) {
      finish_call(conn, call, nullptr);
      return;
    }
    if (args.session == kNewSession) {
      if (sessions_.full()) {
        finish_call(conn, call, tool_error("too many sessions open; close one with close_session"));
        return;
      }
      auto opened = executor_->open_session(*args.env);
      if (!opened) {
        finish_call(conn, call, tool_error("could not start a session: " + opened.error().describe()));
        return;
      }
      handle = *opened;
      session_id = sessions_.add(conn->id(), args.env->name, handle);
      new_session = true;
      (void)sessions_.acquire(session_id, conn->id(), args.env->name);  // busy for this call
    } else if (!args.session.empty()) {
      auto h = sessions_.acquire(args.session, conn->id(), args.env->name);
      if (!h) {
        finish_call(conn, call, tool_error(h.error().describe()));
        return;
      }
      handle = *h;
      session_id = args.session;
    }
    observed.in_session = !handle.empty();
    ExecRequest req{args.env, std::move(args.code), args.timeout, handle};
    auto outcome = executor_->execute(req, *call->control);
    if (!session_id.empty()) sessions_.release(session_id);
    if (!outcome) {
      result = tool_error("execution failed: " + outcome.error().describe());
    } else {
      result = execute_result(args, *outcome, session_id, new_session);
      observed.report(&*outcome);
    }
  } catch (const std::exception& e) {
    result = tool_error(std::string("internal error: ") + e.what());
  } catch (...) {
    result = tool_error("internal error");
  }
  finish_call(conn, call, std::move(result));
}

void Server::finish_call(const std::shared_ptr<Connection>& conn,
                         const std::shared_ptr<Connection::Call>& call, json result) {
  {
    std::lock_guard lock(conn->mu_);
    conn->calls_.erase(key_of(call->id));
  }
  {
    std::lock_guard lock(call->mu);
    call->finished = true;
    // A cancelled request gets no response (the client has stopped waiting for it).
    if (!result.is_null() && !call->control->cancelled())
      call->out->send(result_response(call->id, std::move(result)));
  }
  call->out->done();
}

json Server::close_session(const Connection& conn, const json& args) {
  auto s = args.find("session");
  if (s == args.end() || !s->is_string()) return tool_error("\"session\" is required");
  auto handle = sessions_.remove(s->get<std::string>(), conn.id());
  if (!handle) return tool_error(handle.error().describe());
  executor_->close_session(*handle);
  return json{{"content", json::array({{{"type", "text"}, {"text", "session closed"}}})},
              {"isError", false}};
}

void Server::ticker() {
  std::unique_lock lock(tick_mu_);
  while (!stopping_) {
    tick_cv_.wait_for(lock, options_.progress_interval);
    if (stopping_) break;
    lock.unlock();
    std::vector<std::shared_ptr<Connection::Call>> live;
    {
      std::lock_guard cl(calls_mu_);
      std::erase_if(active_calls_, [](const std::weak_ptr<Connection::Call>& w) {
        auto c = w.lock();
        if (!c) return true;
        std::lock_guard l(c->mu);
        return c->finished;
      });
      for (auto& w : active_calls_)
        if (auto c = w.lock()) live.push_back(std::move(c));
    }
    auto now = std::chrono::steady_clock::now();
    for (auto& c : live) {
      if (c->progress_token.is_null()) continue;
      std::lock_guard l(c->mu);
      if (c->finished || c->control->cancelled()) continue;
      double elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - c->started).count() / 1000.0;
      if (elapsed <= c->last_progress) continue;  // progress must increase
      c->last_progress = elapsed;
      double total = c->timeout.count() / 1000.0;
      c->out->send(notification(
          "notifications/progress",
          {{"progressToken", c->progress_token},
           {"progress", elapsed},
           {"total", total},
           {"message", fmt::format("running for {:.0f} s (timeout {:.0f} s)", elapsed, total)}}));
    }
    for (const auto& handle : sessions_.expire()) executor_->close_session(handle);
    lock.lock();
  }
}

}  // namespace paddock::mcp
