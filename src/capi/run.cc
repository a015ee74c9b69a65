// The C API's runs: start, wait, run, and the typed result with its report (paddock/paddock.h).
#include "capi/handles.h"
#include "engine/report.h"
#include "paddock/sandbox.h"

struct paddock_execution {
  std::unique_ptr<paddock::Execution> execution;
  std::shared_ptr<paddock::CancelToken> cancel;
  paddock::Policy policy;  // for the report
  std::vector<std::string> argv;
  bool waited = false;
};

struct paddock_result {
  paddock::RunResult result;
  std::string failure, report;
};

namespace paddock::capi {
namespace {

constexpr std::size_t kRunOptionsV1 = sizeof(paddock_run_options);

std::vector<std::string> strings_of(const char* const* list) {
  std::vector<std::string> out;
  for (; list != nullptr && *list != nullptr; ++list) out.emplace_back(*list);
  return out;
}

Result<RunOptions> run_options(const paddock_run_options* given) {
  auto o = read_options(given, kRunOptionsV1, "paddock_run_options");
  if (!o) return std::move(o).take_error();
  RunOptions r;
  r.argv = strings_of(o->argv);
  if (r.argv.empty()) return make_error("no command to run", "paddock_run_options.argv");
  if (o->env != nullptr) r.host_env = strings_of(o->env);
  // A library caller is not a terminal program: no pty of its own, its signals left alone.
  r.pty = false;
  r.forward_signals = false;
  if (o->capture != 0) {
    r.stdio = RunOptions::Stdio::Capture;
    if (o->stdin_data != nullptr) r.stdin_data = std::string(o->stdin_data, o->stdin_len);
    if (o->capture_limit != 0) r.capture_limit = o->capture_limit;
  }
  if (o->cwd != nullptr) r.cwd = std::string(o->cwd);
  return r;
}

paddock_result* result_of(RunResult r, const Policy& policy, const std::vector<std::string>& argv) {
  auto out = std::make_unique<paddock_result>();
  out->failure = r.failure_message();
  out->report = json_text(run_report(r, policy, argv));
  out->result = std::move(r);
  return out.release();
}

}  // namespace
}  // namespace paddock::capi

using namespace paddock;
using namespace paddock::capi;

extern "C" {

paddock_error* paddock_start(const paddock_policy* p, const paddock_run_options* options, paddock_execution** out) {
  return guarded([&]() -> paddock_error* {
    auto opts = run_options(options);
    if (!opts) return to_c(std::move(opts).take_error());
    auto x = std::make_unique<paddock_execution>();
    x->cancel = std::make_shared<CancelToken>();
    opts->cancel = x->cancel;
    x->policy = p->policy;
    x->argv = opts->argv;
    auto e = start(x->policy, *opts);
    if (!e) return to_c(std::move(e).take_error());
    x->execution = std::move(*e);
    *out = x.release();
    return nullptr;
  });
}

pid_t paddock_execution_pid(const paddock_execution* x) { return x->execution->pid(); }

void paddock_execution_cancel(paddock_execution* x) { x->cancel->cancel(); }

paddock_error* paddock_wait(paddock_execution* x, paddock_result** out) {
  return guarded([&]() -> paddock_error* {
    if (x->waited) return to_c(make_error("this execution was waited for already", "paddock_wait"));
    x->waited = true;
    auto r = x->execution->wait();
    if (!r) return to_c(std::move(r).take_error());
    *out = result_of(std::move(*r), x->policy, x->argv);
    return nullptr;
  });
}

void paddock_execution_free(paddock_execution* x) { delete x; }  // ~Launch kills and reaps

paddock_error* paddock_run(const paddock_policy* p, const paddock_run_options* options, paddock_result** out) {
  paddock_execution* x = nullptr;
  if (paddock_error* e = paddock_start(p, options, &x)) return e;
  paddock_error* e = paddock_wait(x, out);
  paddock_execution_free(x);
  return e;
}

paddock_status paddock_result_status(const paddock_result* r) {
  switch (r->result.status) {
    case RunResult::Status::Exited: return PADDOCK_STATUS_EXITED;
    case RunResult::Status::Signaled: return PADDOCK_STATUS_SIGNALED;
    case RunResult::Status::SetupFailed: return PADDOCK_STATUS_SETUP_FAILED;
    case RunResult::Status::NotFound: return PADDOCK_STATUS_NOT_FOUND;
    case RunResult::Status::NotExecutable: return PADDOCK_STATUS_NOT_EXECUTABLE;
  }
  return PADDOCK_STATUS_SETUP_FAILED;
}

int paddock_result_exit_code(const paddock_result* r) { return r->result.exit_code; }
int paddock_result_signal(const paddock_result* r) { return r->result.signal; }
int paddock_result_shell_code(const paddock_result* r) { return r->result.shell_code(); }
int paddock_result_timed_out(const paddock_result* r) { return r->result.timed_out ? 1 : 0; }
int paddock_result_oom(const paddock_result* r) { return r->result.oom ? 1 : 0; }
int paddock_result_cancelled(const paddock_result* r) { return r->result.cancelled ? 1 : 0; }
const char* paddock_result_failure(const paddock_result* r) { return r->failure.c_str(); }
const char* paddock_result_isolation(const paddock_result* r) { return r->result.isolation.c_str(); }

const char* paddock_result_stdout(const paddock_result* r, size_t* len) {
  if (len != nullptr) *len = r->result.stdout_data.size();
  return r->result.stdout_data.c_str();
}

const char* paddock_result_stderr(const paddock_result* r, size_t* len) {
  if (len != nullptr) *len = r->result.stderr_data.size();
  return r->result.stderr_data.c_str();
}

size_t paddock_result_left_behind_count(const paddock_result* r) { return r->result.left_behind.size(); }

const char* paddock_result_left_behind_path(const paddock_result* r, size_t i) {
  return i < r->result.left_behind.size() ? r->result.left_behind[i].path.c_str() : nullptr;
}

const char* paddock_result_report_json(const paddock_result* r) { return r->report.c_str(); }
void paddock_result_free(paddock_result* r) { delete r; }

}  // extern "C"
