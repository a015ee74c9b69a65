// Replays the fuzz corpus (tests/mcp/corpus) through the fuzz entry point, plus a few thousand
// deterministic mutations of it, so the message path is exercised on every test run even where
// libFuzzer is not available.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "mcp/fuzz_entry.h"

namespace paddock::mcp {
namespace {

std::vector<std::string> load_corpus() {
  auto dir = std::filesystem::path(PADDOCK_SOURCE_DIR) / "tests" / "mcp" / "corpus";
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

TEST(FuzzCorpus, ReplaysAndMutatesWithoutCrashing) {
  auto corpus = load_corpus();
  if (corpus.empty()) GTEST_SKIP() << "corpus not found next to the sources (tests/mcp/corpus)";
  for (const auto& c : corpus) fuzz_one_message(c);
  std::mt19937 rng(12345);
  for (int i = 0; i < 3000; ++i) {
    std::string s = corpus[rng() % corpus.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      std::size_t pos = rng() % s.size();
      switch (rng() % 4) {
        case 0: s[pos] = static_cast<char>(rng()); break;                     // flip a byte
        case 1: s.resize(pos); break;                                         // truncate
        case 2: s.insert(pos, std::string(1 + rng() % 3, "{[\"\\:,0"[rng() % 7])); break;
        case 3: s.erase(pos, 1 + rng() % 8); break;
      }
    }
    fuzz_one_message(s);
  }
  SUCCEED();
}

}  // namespace
}  // namespace paddock::mcp
