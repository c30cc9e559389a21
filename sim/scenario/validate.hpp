#pragma once
// The schema-driven validator under load_scenario_text(), usable with any Schema (tests use small
// ones, e.g. with List fields no area declares yet).
#include <map>
#include <string>
#include <vector>

#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Parses YAML `text` and validates it against `schema`: every key must be a field (else
/// ScenarioError with a "did you mean" hint), Map fields group keys, List fields are sequences of
/// mappings validated against "<key>[].<field>", scalars are parsed to SI (sim/scenario/unit_parser.hpp),
/// checked against min/max/min_exclusive/choices, and defaults are filled; a missing required key is
/// an error at its nearest written parent. Returns the root Params (flat dotted keys; list items as
/// child Params with path "<key>[i]"); `locations` is cleared and receives the 1-based line/column of every key
/// written ("fabric.link_rate", "rollout.phases[1]", "rollout.phases[1].gpus"), and "" for the
/// document's first key. `name` is the file name used in messages. Throws ScenarioError for any
/// bad input, including YAML syntax errors, text that is not printable UTF-8, and documents beyond
/// the bounds of sim/scenario/input_limits.hpp (size, nesting, aliases, list length) or with
/// explicit YAML tags. `overrides` (LoadOptions::overrides) are applied to the document first; keys
/// they set are located at {"<name> (<origin>)", 0, 0}.
Params validate_scenario_text(const std::string& text, const std::string& name, const Schema& schema,
                              std::map<std::string, SourceLocation>& locations,
                              const std::vector<Override>& overrides = {}, const std::string& origin = {});

}  // namespace aidcsim
