#pragma once
// Scenario keys of the priced bill of materials (`bom:`) and their conversion to a BomSpec. The
// built-in values are models/topology/bom_parts.yaml, read with the same schema (sim/scenario).
#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/topology/bom_spec.hpp"

namespace aidcsim::topology {

/// The `bom.*` keys. They have no schema defaults: every value not written in the scenario comes
/// from the built-in parts file (bom_parts.yaml).
Schema bom_schema();

/// BomSpec from `base` (the validated parts file) overridden by `root` (a validated scenario):
/// each scalar key the scenario gives replaces the base's; scenario `bom.switches` / `bom.optics`
/// items replace base items of the same name (case-sensitive) or are appended. Throws
/// InvalidParameter (full dotted key) on an item missing a figure, an unknown switch_model, a
/// medium or ports value out of place.
BomSpec bom_spec_from(const Params& root, const Params& base);

}  // namespace aidcsim::topology
