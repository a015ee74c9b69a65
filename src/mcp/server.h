// The MCP server: lifecycle (initialize, version negotiation), dispatch of requests and
// notifications, tool calls on worker threads, cancellation, progress and sessions. Transports
// (stdio, HTTP) feed it raw messages and give it an Outbox to answer through.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mcp/config.h"
#include "mcp/executor.h"
#include "mcp/json_rpc.h"
#include "mcp/sessions.h"
#include "mcp/tools.h"
#include "mcp/work_queue.h"

namespace paddock::mcp {

// Protocol revisions this server speaks, newest first. An unknown request gets the newest.
const std::vector<std::string>& supported_protocol_versions();

// Where messages for one request (or a whole stdio connection) go. send() is thread-safe.
class Outbox {
 public:
  virtual ~Outbox() = default;
  virtual void send(const json& message) = 0;
  // No more messages for the request this outbox was given with (its response, if any, was sent).
  virtual void done() {}
};

// What the server tells about tool calls that run code (metrics: fleet_metrics.h). Called on
// the worker threads, so implementations are thread-safe and quick.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  virtual void call_started(const std::string& environment) { (void)environment; }
  // outcome: null when nothing ran (the executor failed, a session could not be had);
  // in_session: the code ran in a code session's sandbox (none was started for it).
  virtual void call_finished(const std::string& environment, const ExecOutcome* outcome,
                             bool in_session, std::chrono::duration<double> elapsed) {
    (void)environment, (void)outcome, (void)in_session, (void)elapsed;
  }
};

struct ServerOptions {
  std::string version = "0.0.0";
  std::shared_ptr<CallObserver> observer;  // may be null
  bool project_mounted = false;
  std::chrono::milliseconds progress_interval{1000};
  ParseLimits parse_limits;
};

// One client: stdio has one, Streamable HTTP one per Mcp-Session-Id.
class Connection {
 public:
  const std::string& id() const { return id_; }
  bool initialized() const;
  std::string protocol_version() const;

 private:
  friend class Server;
  struct Call;
  std::string id_;
  mutable std::mutex mu_;
  bool initialized_ = false;
  bool closed_ = false;
  std::string protocol_version_;
  std::map<std::string, std::shared_ptr<Call>> calls_;  // in flight, by request id (dumped)
};

class Server {
 public:
  Server(Config config, std::shared_ptr<Executor> executor, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::shared_ptr<Connection> connect();
  // Cancels the connection's calls and closes its sessions.
  void disconnect(const std::shared_ptr<Connection>& conn);

  // One raw message: parse errors are answered through `out` (and done() is called).
  void handle_raw(const std::shared_ptr<Connection>& conn, std::string_view raw,
                  const std::shared_ptr<Outbox>& out);
  // One parsed message. For a request, exactly one done() follows on `out`, after its response
  // (or without one, when the client cancelled the request). Notifications and responses get
  // no answer and no done().
  void handle(const std::shared_ptr<Connection>& conn, Message message,
              const std::shared_ptr<Outbox>& out);

  // Blocks until no tool call is queued or running.
  void wait_idle();
  // Cancels every call in flight (shutdown).
  void cancel_all();
  // Tool calls waiting for a worker thread, and running.
  struct Load {
    std::size_t queued = 0;
    unsigned running = 0;
  };
  Load load() const { return {workers_.queued(), workers_.running()}; }
  std::size_t open_sessions() const { return sessions_.size(); }

  const Config& config() const { return config_; }
  const ToolContext& tool_context() const { return tool_ctx_; }

 private:
  json handle_initialize(Connection& conn, const json& params, std::string& error, int& code);
  void handle_tools_call(const std::shared_ptr<Connection>& conn, const Message& m,
                         const std::shared_ptr<Outbox>& out);
  void run_execute(const std::shared_ptr<Connection>& conn, const std::shared_ptr<Connection::Call>& call,
                   ExecuteArgs args);
  json close_session(const Connection& conn, const json& args);
  void finish_call(const std::shared_ptr<Connection>& conn,
                   const std::shared_ptr<Connection::Call>& call, json result);
  void ticker();

  Config config_;
  std::shared_ptr<Executor> executor_;
  ServerOptions options_;
  ToolContext tool_ctx_;
  SessionTable sessions_;
  std::atomic<std::uint64_t> next_conn_{1};

  std::mutex calls_mu_;
  std::vector<std::weak_ptr<Connection::Call>> active_calls_;  // for progress and shutdown

  std::mutex tick_mu_;
  std::condition_variable tick_cv_;
  bool stopping_ = false;
  std::thread ticker_;
  WorkQueue workers_;  // last: joined first, while everything it uses still exists
};

}  // namespace paddock::mcp
