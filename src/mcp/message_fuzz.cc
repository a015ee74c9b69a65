// libFuzzer target for the MCP message path: raw bytes -> parse -> server dispatch (with a fake
// executor). Built by hand, not by CMake (see docs/mcp.md):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
//     src/mcp/message_fuzz.cc src/mcp/{json_rpc,config,tools,work_queue,sessions,server}.cc \
//     src/sys/error.cc -lfmt -o build-fuzz/mcp_message_fuzz
//   build-fuzz/mcp_message_fuzz tests/mcp/corpus
// The unit test fuzz_corpus_test.cc runs the same entry point over the corpus.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mcp/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  paddock::mcp::fuzz_one_message(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
