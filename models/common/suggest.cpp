#include "models/common/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace aidcsim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto eq = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = eq(a[i - 1], b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, word.size() / 3));
  std::optional<std::string> best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

namespace {

// word -> value, note. Usual names of the scenario's enumerated values in the literature and in
// other tools' inputs; a synonym whose value is not among a field's choices is ignored there.
struct SynonymEntry {
  const char* word;
  const char* value;
  const char* note;
};
constexpr SynonymEntry kSynonyms[] = {
    // fabric.topology: a 2-tier folded Clos (fat tree) is leaf_spine, a 3-tier one clos3.
    {"fat_tree", "clos3", "a 3-tier fat tree; a 2-tier one is leaf_spine"},
    {"fattree", "clos3", "a 3-tier fat tree; a 2-tier one is leaf_spine"},
    {"three_tier", "clos3", "a 3-tier Clos"},
    {"3_tier", "clos3", "a 3-tier Clos"},
    {"3tier", "clos3", "a 3-tier Clos"},
    {"spine_leaf", "leaf_spine", "a 2-tier Clos"},
    {"spineleaf", "leaf_spine", "a 2-tier Clos"},
    {"leafspine", "leaf_spine", "a 2-tier Clos"},
    {"two_tier", "leaf_spine", "a 2-tier Clos"},
    {"2_tier", "leaf_spine", "a 2-tier Clos"},
    {"clos2", "leaf_spine", "a 2-tier Clos"},
    // fabric.wiring
    {"rail", "rail_optimized", ""},
    {"rail_aligned", "rail_optimized", ""},
    // fabric.ecmp.mode
    {"packet_spray", "spray", "per-packet spraying"},
    {"packet_spraying", "spray", "per-packet spraying"},
    {"flow_hash", "hash", "per-flow ECMP hashing"},
    // workload precision and dtypes
    {"bfloat16", "bf16", ""},
    {"float16", "fp16", ""},
    {"half", "fp16", ""},
    {"float8", "fp8", ""},
    {"float32", "fp32", ""},
    {"single", "fp32", ""},
    // workload.parallelism.zero: ZeRO stage 3 shards the parameters as FSDP does.
    {"zero3", "fsdp", "ZeRO stage 3 shards parameters, gradients and optimizer state as FSDP does"},
    {"zero_3", "fsdp", "ZeRO stage 3 shards parameters, gradients and optimizer state as FSDP does"},
    {"full_shard", "fsdp", ""},
    // workload.parallelism.dp_algorithm
    {"rhd", "halving_doubling", "recursive halving-doubling"},
    {"recursive_halving_doubling", "halving_doubling", ""},
    {"double_binary_tree", "tree", "NCCL's tree is a double binary tree"},
    // cooling
    {"propylene_glycol", "pg25", "25 % propylene glycol in water"},
    {"glycol", "pg25", "25 % propylene glycol in water"},
    {"polyalphaolefin", "pao", ""},
    {"dlc", "cold_plate", "direct liquid cooling"},
    {"direct_liquid", "cold_plate", "direct liquid cooling"},
    {"direct_to_chip", "cold_plate", "direct liquid cooling"},
    {"immersion", "immersion_tank", ""},
    {"rear_door", "rdhx", "rear-door heat exchanger"},
    {"rear_door_heat_exchanger", "rdhx", ""},
    {"in_row", "in_row_cooler", ""},
    {"irc", "in_row_cooler", ""},
    {"l2l", "liquid_to_liquid", ""},
    {"l2a", "liquid_to_air", ""},
    // reliability.checkpoint_policy
    {"young", "young_daly", ""},
    {"daly", "young_daly", ""},
};

// Lower case, '-' and ' ' as '_'.
std::string normalised(std::string_view w) {
  std::string out;
  for (const char c : w)
    out += c == '-' || c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<Synonym> known_synonym(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string w = normalised(word);
  for (const SynonymEntry& e : kSynonyms)
    if (w == e.word && std::find(candidates.begin(), candidates.end(), e.value) != candidates.end())
      return Synonym{e.value, e.note};
  return std::nullopt;
}

std::string choice_hint(std::string_view word, const std::vector<std::string>& candidates) {
  if (const auto s = known_synonym(word, candidates))
    return "did you mean '" + s->value + "'?" + (s->note.empty() ? "" : " (" + s->note + ")");
  if (const auto m = closest_match(word, candidates)) return "did you mean '" + *m + "'?";
  return {};
}

}  // namespace aidcsim
