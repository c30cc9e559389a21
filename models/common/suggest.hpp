#pragma once
// "Did you mean ...?" for misspelt keys, choices and names (e.g. a GPU of the catalogue), and for
// well-known synonyms of enumerated values (fat_tree for clos3).
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

/// A value of an enumeration named by another of its usual names.
struct Synonym {
  std::string value;  ///< the candidate it stands for ("clos3")
  std::string note;   ///< why, for the user ("a 3-tier fat tree"); may be empty
};

/// The candidate `word` is a well-known synonym of, from a fixed table of the field's usual names
/// (fat_tree/fattree -> clos3, spine_leaf -> leaf_spine, bfloat16 -> bf16, zero3 -> fsdp, ...),
/// compared ASCII case-insensitively with '-' and ' ' read as '_'. Only a synonym whose value is
/// among `candidates` counts; nullopt otherwise.
std::optional<Synonym> known_synonym(std::string_view word, const std::vector<std::string>& candidates);

/// The hint for `word` given where one of `candidates` (an enumeration) was expected: "did you
/// mean 'clos3'? (a 3-tier fat tree; a 2-tier one is leaf_spine)" for a known synonym, else "did
/// you mean 'X'?" for a close spelling (closest_match), else empty.
std::string choice_hint(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace aidcsim
