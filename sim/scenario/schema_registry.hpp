#pragma once
// The full scenario schema: the top-level keys owned by sim/scenario plus every model area's
// schema() (topology, compute, workload, thermal, reliability). The loader validates against it and
// the reference page (docs/scenario-reference.md) is rendered from it.
#include <string_view>

#include "models/common/schema.hpp"

namespace aidcsim {

/// Keys sim/scenario itself reads: name (String), description (String), seed (Integer, default 0).
Schema top_level_schema();

/// top_level_schema() followed by each area's schema(), in that order. Map parents that an area
/// implies but does not declare (e.g. "power" for "power.pue") are added as undocumented Map fields
/// right before their first child, and a Map declared by two areas is kept once, so every dotted
/// prefix of a key is itself a field. A non-Map key declared twice is kept once (first wins);
/// duplicate_keys() lists such clashes for the tests.
Schema full_schema();

/// Non-Map keys declared more than once across the areas' schemas (should be empty).
std::vector<std::string> duplicate_keys();

/// The field with exactly this schema key ("fabric.link_rate", "rollout.phases[].gpus"), or null.
const Field* find_field(const Schema& schema, std::string_view key);

}  // namespace aidcsim
