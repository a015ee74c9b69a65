// "did you mean ...?" hints for misspelt keys and values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paddock {

// Edit distance (insertions, deletions, substitutions, adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate when it is close enough to be a likely typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean \"allow\"?" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace paddock
