// The C API's policies: the builder, the policy and its JSON, and `why` (paddock/paddock.h).
#include "capi/handles.h"
#include "paddock/profile.h"
#include "paddock/sandbox.h"
#include "paddock/why.h"
#include "policy/path_util.h"

struct paddock_decision {
  paddock::Decision decision;
  std::string text, json;
};

namespace paddock::capi {
namespace {

constexpr std::size_t kBuilderOptionsV1 = sizeof(paddock_builder_options);
constexpr std::size_t kLimitsV1 = sizeof(paddock_limits);

// The flag the command line has for ACCESS, so that origins and messages read the same.
std::string flag_for(paddock_access a) {
  return a == PADDOCK_ACCESS_READ_WRITE ? "--allow " : a == PADDOCK_ACCESS_READ ? "--read " : "--write ";
}

Result<Access> access_of(int a, const std::string& where) {
  if (a < PADDOCK_ACCESS_NONE || a > PADDOCK_ACCESS_READ_WRITE)
    return make_error("no such access: " + std::to_string(a), where, "PADDOCK_ACCESS_READ, _WRITE or _READ_WRITE");
  return static_cast<Access>(a);
}

}  // namespace
}  // namespace paddock::capi

using namespace paddock;
using namespace paddock::capi;

extern "C" {

paddock_error* paddock_builder_new(const paddock_builder_options* given, paddock_policy_builder** out) {
  return guarded([&]() -> paddock_error* {
    auto o = read_options(given, kBuilderOptionsV1, "paddock_builder_options");
    if (!o) return to_c(std::move(o).take_error());
    auto ctx = HostContext::from_process();
    if (!ctx) return to_c(std::move(ctx).take_error());
    if (o->cwd != nullptr) ctx->cwd = path::normalize(absolute_path(o->cwd, *ctx));
    auto b = std::make_unique<paddock_policy_builder>();
    b->ctx = std::move(*ctx);
    b->builder = std::make_unique<PolicyBuilder>(b->ctx);
    if (o->profile != nullptr) {
      auto src = find_profile(o->profile, b->ctx);
      if (!src) return to_c(std::move(src).take_error());
      if (auto r = apply_profile(*src, *b->builder, b->ctx); !r) return to_c(std::move(r).take_error());
    }
    *out = b.release();
    return nullptr;
  });
}

void paddock_builder_allow(paddock_policy_builder* b, const char* path, paddock_access access) {
  (void)guarded([&]() -> paddock_error* {
    const std::string p = or_empty(path);
    auto a = access_of(access, "paddock_builder_allow " + p);
    if (!a) b->builder->fail(std::move(a).take_error());
    else b->builder->allow(p, *a, {Origin::Kind::Flag, flag_for(access) + p});
    return nullptr;
  });
}

void paddock_builder_cwd_access(paddock_policy_builder* b, paddock_access access) {
  (void)guarded([&]() -> paddock_error* {
    auto a = access_of(access, "paddock_builder_cwd_access");
    if (!a) b->builder->fail(std::move(a).take_error());
    else b->builder->cwd_access(*a);
    return nullptr;
  });
}

void paddock_builder_network(paddock_policy_builder* b, paddock_net mode) {
  (void)guarded([&]() -> paddock_error* {
    if (mode == PADDOCK_NET_OFF) b->builder->network(NetMode::Off);
    else if (mode == PADDOCK_NET_HOST) b->builder->network(NetMode::Host);
    else if (mode == PADDOCK_NET_FILTERED) b->builder->network(NetMode::Filtered);
    else b->builder->fail(make_error("no such network mode: " + std::to_string(mode), "paddock_builder_network"));
    return nullptr;
  });
}

void paddock_builder_allow_domain(paddock_policy_builder* b, const char* pattern) {
  (void)guarded([&]() -> paddock_error* {
    const std::string p = or_empty(pattern);
    b->builder->allow_domain(p, "--allow-domain " + p);
    if (b->builder->network_policy().mode == NetMode::Off) b->builder->network(NetMode::Filtered);
    return nullptr;
  });
}

void paddock_builder_pass_env(paddock_policy_builder* b, const char* name) {
  (void)guarded([&]() -> paddock_error* {
    b->builder->pass_env(or_empty(name));
    return nullptr;
  });
}

void paddock_builder_set_env(paddock_policy_builder* b, const char* name, const char* value) {
  (void)guarded([&]() -> paddock_error* {
    b->builder->set_env(or_empty(name), or_empty(value));
    return nullptr;
  });
}

void paddock_builder_require_namespaces(paddock_policy_builder* b, int on) {
  (void)guarded([&]() -> paddock_error* {
    b->builder->require_namespaces(on != 0);
    return nullptr;
  });
}

void paddock_builder_limits(paddock_policy_builder* b, const paddock_limits* given) {
  (void)guarded([&]() -> paddock_error* {
    auto o = read_options(given, kLimitsV1, "paddock_limits");
    if (!o) {
      b->builder->fail(std::move(o).take_error());
      return nullptr;
    }
    Limits& l = b->builder->mutable_limits();
    if (o->memory_bytes != 0) l.memory_bytes = o->memory_bytes;
    if (o->pids != 0) l.pids = o->pids;
    if (o->cpu > 0) l.cpu = o->cpu;
    if (o->timeout_ms != 0) l.timeout = std::chrono::milliseconds(o->timeout_ms);
    return nullptr;
  });
}

paddock_error* paddock_builder_build(const paddock_policy_builder* b, paddock_policy** out) {
  return guarded([&]() -> paddock_error* {
    auto p = b->builder->build();
    if (!p) return to_c(std::move(p).take_error());
    *out = new paddock_policy{std::move(*p)};
    return nullptr;
  });
}

void paddock_builder_free(paddock_policy_builder* b) { delete b; }

paddock_error* paddock_policy_to_json(const paddock_policy* p, char** json_out) {
  return guarded([&]() -> paddock_error* {
    *json_out = dup_string(json_text(policy_to_json(p->policy)));
    return nullptr;
  });
}

paddock_error* paddock_policy_from_json(const char* json, paddock_policy** out) {
  return guarded([&]() -> paddock_error* {
    nlohmann::json j = nlohmann::json::parse(or_empty(json), nullptr, false);
    if (j.is_discarded()) return to_c(make_error("not valid JSON", "paddock_policy_from_json"));
    auto p = policy_from_json(j);
    if (!p) return to_c(std::move(p).take_error());
    *out = new paddock_policy{std::move(*p)};
    return nullptr;
  });
}

const char* paddock_policy_cwd(const paddock_policy* p) { return p->policy.cwd.c_str(); }
void paddock_policy_free(paddock_policy* p) { delete p; }

paddock_error* paddock_why(const paddock_policy* p, const char* path, paddock_op op, paddock_decision** out) {
  return guarded([&]() -> paddock_error* {
    if (op < PADDOCK_OP_READ || op > PADDOCK_OP_EXEC)
      return to_c(make_error("no such operation: " + std::to_string(op), "paddock_why"));
    const Op o = op == PADDOCK_OP_READ ? Op::Read : op == PADDOCK_OP_WRITE ? Op::Write : Op::Exec;
    auto d = std::make_unique<paddock_decision>();
    d->decision = explain_path(p->policy, or_empty(path), o, *real_fs());
    d->text = to_text(d->decision);
    d->json = json_text(to_json(d->decision));
    *out = d.release();
    return nullptr;
  });
}

int paddock_decision_allowed(const paddock_decision* d) { return d->decision.allowed ? 1 : 0; }
const char* paddock_decision_reason(const paddock_decision* d) { return d->decision.reason.c_str(); }
const char* paddock_decision_suggestion(const paddock_decision* d) { return d->decision.suggestion.c_str(); }
const char* paddock_decision_text(const paddock_decision* d) { return d->text.c_str(); }
const char* paddock_decision_json(const paddock_decision* d) { return d->json.c_str(); }
void paddock_decision_free(paddock_decision* d) { delete d; }

}  // extern "C"
