#pragma once
// The topology area's part of the results: the fabric as built (switches, tiers,
// oversubscription, bisection) and its priced bill of materials (links by medium, optics, power,
// indicative cost), with the BOM notes. Adding a fabric output metric means adding it here (and to
// docs/outputs.md).
#include "models/common/results.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::topology {

/// Writes the summary figures of `bom` (as built) and `cost` (bom_price.hpp: media, modules,
/// power in kW, indicative cost in MUSD / USD per GPU) and the fabric BOM notes into `r`.
void report_fabric(Results& r, const BillOfMaterials& bom, const FabricCost& cost);

}  // namespace aidcsim::topology
