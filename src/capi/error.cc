// The C API's errors, strings and versions (paddock/paddock.h).
#include <cstdlib>

#include "capi/handles.h"

namespace paddock::capi {
namespace {

// Returned when not even an error can be allocated: a failure must never read as success.
paddock_error g_out_of_memory{make_error("out of memory"), "out of memory"};

}  // namespace

paddock_error* to_c(Error e) {
  try {
    auto* out = new paddock_error;
    out->described = e.describe();
    out->error = std::move(e);
    return out;
  } catch (...) {
    return &g_out_of_memory;
  }
}

char* dup_string(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace paddock::capi

extern "C" {

uint32_t paddock_abi_version(void) { return PADDOCK_ABI_VERSION; }
const char* paddock_version(void) { return PADDOCK_VERSION; }

const char* paddock_error_message(const paddock_error* e) { return e ? e->error.message.c_str() : ""; }
const char* paddock_error_where(const paddock_error* e) { return e ? e->error.where.c_str() : ""; }
const char* paddock_error_hint(const paddock_error* e) { return e ? e->error.hint.c_str() : ""; }
int paddock_error_errno(const paddock_error* e) { return e ? e->error.sys_errno : 0; }
const char* paddock_error_describe(const paddock_error* e) { return e ? e->described.c_str() : ""; }
void paddock_error_free(paddock_error* e) {
  if (e != &paddock::capi::g_out_of_memory) delete e;
}
void paddock_string_free(char* s) { std::free(s); }

}  // extern "C"
