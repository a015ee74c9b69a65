// libFuzzer target for the MCP message path: raw bytes -> parse -> server dispatch (with a fake
// executor). CMake target mcp_message_fuzz (-DPADDOCK_FUZZ=ON, clang); scripts/fuzz-mcp.sh
// builds and runs it. The unit test fuzz_corpus_test.cc runs the same entry point over the corpus.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mcp/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  paddock::mcp::fuzz_one_message(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
