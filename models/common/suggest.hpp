#pragma once
// "Did you mean ...?" for misspelt keys, choices and names (e.g. a GPU of the catalogue).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aidcsim {

/// Optimal-string-alignment distance (Levenshtein plus adjacent transposition), case-insensitive:
/// "swich_radix" -> "switch_radix" = 1, "tpo" -> "top" = 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` if it is close enough to be a likely slip: distance at most
/// max(1, min(3, |word| / 3)). Ties go to the earlier candidate. nullopt when none is close.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace aidcsim
