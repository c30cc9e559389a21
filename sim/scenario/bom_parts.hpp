#pragma once
// The built-in fabric parts file (models/topology/bom_parts.yaml, compiled in): the defaults of the
// scenario's `bom:` keys, read with the scenario validator.
#include "models/common/params.hpp"
#include "models/topology/bom_spec.hpp"

namespace aidcsim {

/// Text of the built-in parts file.
const char* builtin_bom_parts_text();

/// The built-in parts file validated against topology::bom_schema() (parsed on first use,
/// thread-safe). A broken built-in file is a build defect: tests load it; a ScenarioError naming
/// bom_parts.yaml:line is thrown if it is.
const Params& builtin_bom_parts();

/// The BomSpec of the built-in parts alone (no scenario overrides).
topology::BomSpec builtin_bom_spec();

}  // namespace aidcsim
