#pragma once
// JSON writer: the run's summary, checklist, rollout phases and notes for scripts and dashboards
// (the other arrays stay in the HDF5 file).
//
// {"format_version": "2", "aidcsim_version": "0.1.0", "git_sha": "<commit>",
//  "scenario": {"name": ..., "file": ..., "seed": 42},
//  "summary": {"<key>": {"value": 1.5, "unit": "s", "description": "..."}, ...},   // engine's order
//  "checks": [{"item", "value", "limit", "unit", "headroom", "pass", "note"}, ...],
//  "phases": {"phase": ["8K", ...], "<column>": {"unit": "s", "values": [...]}, ...},  // rollout only;
//            "start": {"unit": "seconds since 1970-01-01 00:00:00 UTC", ...}
//  "notes": ["...", ...],
//  "warnings": ["...", ...]}   // inputs used otherwise than written; usually empty
// Numbers are written with round-trip precision; a non-finite value (NaN, inf) becomes null.
#include <string>

#include <nlohmann/json.hpp>

#include "models/common/results.hpp"

namespace aidcsim {

/// Version of the JSON layout above. "1": phase names under "phases"/"name", no git_sha.
inline constexpr const char* kJsonFormatVersion = "2";

/// The JSON document above. Keys of "summary" keep the order of Results::summary.
nlohmann::ordered_json results_to_json(const Results& results);

/// Summary, checks and notes of a JSON document written by write_json (the inverse of
/// results_to_json for those parts; datasets and labels are not in the JSON). null values read
/// back as NaN. Throws aidcsim::Error if the document does not have the layout above.
Results results_from_json(const nlohmann::ordered_json& doc);

/// results_to_json(results) indented by 2, with a final newline.
std::string json_text(const Results& results);

/// Writes json_text(results) to `path` with the guarantees of sim/results/output_set.hpp. Throws
/// aidcsim::Error on any I/O error, leaving neither `path` changed nor a temporary file behind.
void write_json(const Results& results, const std::string& path);

}  // namespace aidcsim
