#pragma once
// The wording of the config reader's messages: quoting, lists of words and
// "did you mean" suggestions. Internal to app/scenario/config_*.cpp.
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "app/scenario/config_reader.hpp"

namespace ksim::config::detail {

// 'text', shortened to an excerpt (config_reader.hpp's excerpt()).
std::string single_quoted(std::string_view text);

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate, if close enough to be a plausible typo of `word`.
template <class Candidates>
std::optional<std::string> closest(std::string_view word, const Candidates& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance && distance < word.size()) {
      best = std::string(candidate);
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(const std::optional<std::string>& suggestion);

// "'a', 'b' or 'c'"
template <class Words>
std::string list_words(const Words& words) {
  std::string out;
  std::size_t index = 0;
  for (std::string_view word : words) {
    if (index > 0) out += index + 1 == std::size(words) ? " or " : ", ";
    out += single_quoted(word);
    ++index;
  }
  return out;
}

}  // namespace ksim::config::detail
