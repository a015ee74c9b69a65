// What the C API's opaque handles are, and the helpers every src/capi/*.cc file uses: errors as
// values (never an exception across the C boundary) and the struct_size convention of option
// structs (docs/c-api.md).
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "paddock/paddock.h"
#include "paddock/policy.h"
#include "paddock/result.h"

struct paddock_error {
  paddock::Error error;
  std::string described;  // error.describe(), kept for paddock_error_describe
};

struct paddock_policy_builder {
  paddock::HostContext ctx;
  std::unique_ptr<paddock::PolicyBuilder> builder;
};

struct paddock_policy {
  paddock::Policy policy;
};

namespace paddock::capi {

paddock_error* to_c(Error e);
// A string the caller frees with paddock_string_free.
char* dup_string(const std::string& s);
// JSON as the C API hands it out: indented, bytes that are not UTF-8 replaced.
std::string json_text(const nlohmann::json& j);

// Runs BODY (which returns a paddock_error*, NULL on success); an exception becomes an error.
template <class F>
paddock_error* guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return to_c(make_error(std::string("internal error: ") + e.what()));
  } catch (...) {
    return to_c(make_error("internal error"));
  }
}

// An option struct as the caller compiled it (docs/c-api.md): GIVEN's struct_size bytes. Fields
// the caller's struct lacks stay zero; bytes past what this library knows must be zero.
// NULL: all defaults. FIRST is the size of the struct's first published version.
template <class T>
Result<T> read_options(const T* given, std::size_t first, const char* what) {
  T out{};
  out.struct_size = sizeof(T);
  if (given == nullptr) return out;
  const std::size_t size = given->struct_size;
  if (size < first)
    return make_error(std::string(what) + ": struct_size " + std::to_string(size) +
                          " is smaller than the struct has ever been (" + std::to_string(first) + ")",
                      what, "set struct_size = sizeof(" + std::string(what) + "), or use its _INIT macro");
  std::memcpy(&out, given, size < sizeof(T) ? size : sizeof(T));
  const auto* bytes = reinterpret_cast<const unsigned char*>(given);
  for (std::size_t i = sizeof(T); i < size; ++i) {
    if (bytes[i] != 0)
      return make_error(std::string(what) + ": an option this library does not know is set (byte " +
                            std::to_string(i) + " of " + std::to_string(size) + "; it knows " +
                            std::to_string(sizeof(T)) + ")",
                        what, "the program was built against a newer paddock.h than the library it loaded (ABI " +
                                  std::to_string(PADDOCK_ABI_VERSION) + ")");
  }
  out.struct_size = sizeof(T);
  return out;
}

inline std::string or_empty(const char* s) { return s != nullptr ? std::string(s) : std::string(); }

}  // namespace paddock::capi
