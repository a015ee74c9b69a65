#include "policy/did_you_mean.h"

#include <algorithm>

namespace paddock {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance, O(|a|·|b|); the inputs are short keys.
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 0;
  // Allow one typo in short words, two in longer ones, never more than a third of the word.
  const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(2, word.size() / 3));
  for (const auto& c : candidates) {
    std::size_t dist = edit_distance(word, c);
    if (dist <= limit && (best.empty() || dist < best_d)) {
      best = c;
      best_d = dist;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string m = closest_match(word, candidates);
  return m.empty() ? std::string() : "did you mean \"" + m + "\"?";
}

}  // namespace paddock
